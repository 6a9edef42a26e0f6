/* fw-rule-parser.c: rule files (rules/NAME.yaml) → FwRuleEntry records (the first of the two passes in
 * fw-rules-private.h). Everything that needs only the file is checked here; names that may be
 * sub-patterns of another file are left for the resolver in fw-rules.c. */
#include "config.h"

#include <inttypes.h>
#include <stdarg.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "fw-error.h"
#include "graph/fw-dtype.h"
#include "rules/fw-rules-private.h"

const char * const fw_rule_dim_names[FW_RULE_N_DIMS + 1] = { "M", "N", "K", "C", "H", "W", "elements", "hidden", NULL };
const char * const fw_rule_operand_names[FW_RULE_N_OPERANDS + 1] = { "input", "weight", "bias", "output", NULL };

static const char * const top_keys[] = { "version", "patterns", "rules", NULL };
static const char * const rule_keys[] = {
  "name", "description", "pattern", "action", "strategy", "when", "priority", "enabled", NULL,
};
static const char * const item_keys[] = { "op", "or", "class", "repeat", NULL };
static const char * const when_keys[] = { "min_dim", "max_dim", "dim", "dtype", "operand_dtype", NULL };
/* In FwRuleStrategy order, after FW_RULE_STRATEGY_ANY. */
static const char * const strategy_names[] = {
  "compute_memory_pairing", "elementwise_chain", "reduce_epilogue", "sequential",
};
static const char * const action_names[] = { "prefer", "forbid" };
static const char * const class_names[] = {
  "elementwise", "broadcast", "injective", "reduce", "out-fusable", "opaque",
};

#define PRIORITY_LIMIT 1000000

gboolean
fw_rule_error (GError **error, const char *file, FwRuleLoc loc, const char *format, ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (error, FW_ERROR, FW_ERROR_INVALID, "%s:%u:%u: %s", file, loc.line, loc.column, message);
  return FALSE;
}

const char *
fw_rule_closest (const char *word, const char * const *candidates, guint n_candidates)
{
  const char *best = NULL;
  guint best_d;

  /* Close means at most a third of the word changed (at least 2 edits allowed, as in "matmul"). */
  best_d = MAX (2u, (guint) strlen (word) / 3) + 1;
  for (guint k = 0; k < n_candidates; k++)
    {
      guint d;

      if (candidates[k] == NULL)
        continue;
      if (g_ascii_strcasecmp (word, candidates[k]) == 0)
        return candidates[k];
      d = fw_yaml_edit_distance (word, candidates[k]);
      if (d < best_d)
        {
          best_d = d;
          best = candidates[k];
        }
    }
  return best;
}

const char *
fw_rule_suggest_op (const char *word, const GPtrArray *extra)
{
  guint n_ops = 0;
  const FwOpInfo *ops = fw_op_registry_get (&n_ops);
  g_autofree const char **names = g_new0 (const char *, n_ops + (extra ? extra->len : 0));
  guint n = 0;

  for (guint k = 0; k < n_ops; k++)
    if (ops[k].domain[0] == '\0')
      names[n++] = ops[k].op_type;
  for (guint k = 0; extra && k < extra->len; k++)
    names[n++] = g_ptr_array_index (extra, k);
  return fw_rule_closest (word, names, n);
}

gboolean
fw_rule_split_domain (const char *name, char **domain, char **op_type)
{
  const char *colon = strchr (name, ':');

  if (colon == NULL)
    return FALSE;
  *domain = g_strndup (name, colon - name);
  *op_type = g_strdup (colon + 1);
  return TRUE;
}

gboolean
fw_rule_domain_is_default (const char *domain)
{
  return domain == NULL || domain[0] == '\0' || strcmp (domain, "ai.onnx") == 0;
}

gboolean
fw_rule_class_from_name (const char *name, FwOpClass *out)
{
  for (guint k = 0; k < G_N_ELEMENTS (class_names); k++)
    if (strcmp (name, class_names[k]) == 0)
      {
        *out = (FwOpClass) k;
        return TRUE;
      }
  return FALSE;
}

static void
item_free (gpointer data)
{
  FwRuleItem *item = data;

  g_free (item->pub.op);
  g_clear_pointer (&item->pub.alternatives, g_ptr_array_unref);
  g_clear_pointer (&item->alt_locs, g_array_unref);
  g_free (item);
}

void
fw_rule_entry_free (gpointer data)
{
  FwRuleEntry *entry = data;

  if (entry == NULL)
    return;
  g_free (entry->pub.name);
  g_free (entry->pub.file);
  g_clear_pointer (&entry->pub.pattern, g_ptr_array_unref);
  g_clear_pointer (&entry->pub.min_dim, g_hash_table_unref);
  g_free (entry->description);
  g_free (entry);
}

static FwRuleLoc
loc_of (const FwYamlNode *node)
{
  return (FwRuleLoc) { node->line, node->column };
}

static FwRuleEntry *
entry_new (const FwYamlDocument *doc, const char *name, const FwYamlNode *where)
{
  FwRuleEntry *entry = g_new0 (FwRuleEntry, 1);

  entry->pub.name = g_strdup (name);
  entry->pub.file = g_strdup (doc->filename);
  entry->pub.line = where->line;
  entry->pub.column = where->column;
  entry->pub.pattern = g_ptr_array_new_with_free_func (item_free);
  entry->pub.strategy = FW_RULE_STRATEGY_ANY;
  entry->pub.action = FW_RULE_PREFER;
  entry->pub.enabled = TRUE;
  entry->pub.min_dim = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  for (guint k = 0; k < FW_RULE_N_DIMS; k++)
    entry->min_dim[k] = entry->max_dim[k] = entry->eq_dim[k] = -1;
  return entry;
}

typedef enum {
  REF_OP,
  REF_CLASS,
  REF_NAME, /* resolved later: a sub-pattern, or an unknown op type */
} RefKind;

/* Checks one op type, class:NAME or name as far as the file alone allows. */
static gboolean
check_ref (const FwYamlDocument *doc, const FwYamlNode *node, const char *text, RefKind *kind,
           FwOpClass *op_class, GError **error)
{
  g_autofree char *domain = NULL;
  g_autofree char *op_type = NULL;

  if (text[0] == '\0')
    return fw_yaml_error (error, doc, node, _("an empty op type"));
  if (g_str_has_prefix (text, "class:"))
    {
      const char *name = text + strlen ("class:");
      const char *close;

      *kind = REF_CLASS;
      if (fw_rule_class_from_name (name, op_class))
        return TRUE;
      close = fw_rule_closest (name, class_names, G_N_ELEMENTS (class_names));
      if (close)
        return fw_yaml_error (error, doc, node, _("unknown op class “%s” (did you mean “%s”?)"), name, close);
      return fw_yaml_error (error, doc, node,
                            _("unknown op class “%s” (one of elementwise, broadcast, injective, reduce, "
                              "out-fusable, opaque)"), name);
    }
  *kind = REF_OP;
  if (fw_rule_split_domain (text, &domain, &op_type))
    {
      const char *close;

      if (op_type[0] == '\0' || strchr (op_type, ':') != NULL || (domain[0] == '\0'))
        return fw_yaml_error (error, doc, node, _("“%s” is not DOMAIN:OP_TYPE"), text);
      if (!fw_rule_domain_is_default (domain) || fw_op_lookup ("", op_type) != NULL)
        return TRUE;
      close = fw_rule_suggest_op (op_type, NULL);
      if (close)
        return fw_yaml_error (error, doc, node, _("unknown op type “%s” (did you mean “%s”?)"), op_type, close);
      return fw_yaml_error (error, doc, node, _("unknown op type “%s”"), op_type);
    }
  if (fw_op_lookup ("", text) == NULL)
    *kind = REF_NAME;
  return TRUE;
}

static gboolean
add_alternative (const FwYamlDocument *doc, const FwYamlNode *node, const char *text, FwRuleItem *item,
                 GError **error)
{
  FwRuleLoc loc = loc_of (node);
  RefKind kind = REF_OP;
  FwOpClass op_class = FW_OP_CLASS_OPAQUE;

  if (!check_ref (doc, node, text, &kind, &op_class, error))
    return FALSE;
  g_ptr_array_add (item->pub.alternatives, g_strdup (text));
  g_array_append_val (item->alt_locs, loc);
  /* One alternative is an op or a class item; names stay ANY_OF (a sub-pattern reference). */
  if (item->pub.alternatives->len == 1 && kind == REF_OP)
    {
      item->pub.kind = FW_PATTERN_OP;
      item->pub.op = g_strdup (text);
    }
  else if (item->pub.alternatives->len == 1 && kind == REF_CLASS)
    {
      item->pub.kind = FW_PATTERN_CLASS;
      item->pub.op_class = op_class;
    }
  else
    {
      item->pub.kind = FW_PATTERN_ANY_OF;
      g_clear_pointer (&item->pub.op, g_free);
    }
  return TRUE;
}

static gboolean
parse_repeat (const FwYamlDocument *doc, const FwYamlNode *node, FwRuleItem *item, GError **error)
{
  gint64 lo, hi;

  if (node->kind == FW_YAML_SCALAR)
    {
      if (!fw_yaml_get_int (doc, node, 1, FW_RULE_MAX_NODES, &lo, error))
        return FALSE;
      item->pub.repeat_min = item->pub.repeat_max = (guint) lo;
      return TRUE;
    }
  if (node->kind != FW_YAML_SEQUENCE || node->items->len != 2)
    return fw_yaml_error (error, doc, node, _("“repeat” must be a count or [MIN, MAX]"));
  if (!fw_yaml_get_int (doc, g_ptr_array_index (node->items, 0), 0, FW_RULE_MAX_NODES, &lo, error)
      || !fw_yaml_get_int (doc, g_ptr_array_index (node->items, 1), 1, FW_RULE_MAX_NODES, &hi, error))
    return FALSE;
  if (lo > hi)
    return fw_yaml_error (error, doc, node, _("repeat [%" PRId64 ", %" PRId64 "]: the minimum is larger "
                                              "than the maximum"), lo, hi);
  item->pub.repeat_min = (guint) lo;
  item->pub.repeat_max = (guint) hi;
  return TRUE;
}

static FwRuleItem *
parse_item (const FwYamlDocument *doc, const FwYamlNode *node, GError **error)
{
  FwRuleItem *item = g_new0 (FwRuleItem, 1);
  const FwYamlNode *op, *cls, *alt, *repeat;

  item->loc = loc_of (node);
  item->pub.repeat_min = item->pub.repeat_max = 1;
  item->pub.alternatives = g_ptr_array_new_with_free_func (g_free);
  item->alt_locs = g_array_new (FALSE, FALSE, sizeof (FwRuleLoc));
  if (node->kind == FW_YAML_SCALAR)
    {
      if (add_alternative (doc, node, node->scalar, item, error))
        return item;
      item_free (item);
      return NULL;
    }
  if (node->kind != FW_YAML_MAPPING)
    {
      fw_yaml_error (error, doc, node, _("a pattern item must be an op type, class:NAME, a sub-pattern name "
                                         "or a mapping with op, or, class and repeat; not %s"),
                     fw_yaml_kind_name (node->kind));
      item_free (item);
      return NULL;
    }
  if (!fw_yaml_check_keys (doc, node, item_keys, error))
    goto fail;
  op = fw_yaml_get (node, "op");
  cls = fw_yaml_get (node, "class");
  alt = fw_yaml_get (node, "or");
  repeat = fw_yaml_get (node, "repeat");
  if (op != NULL)
    {
      const char *text;
      if (!fw_yaml_get_string (doc, op, &text, error) || !add_alternative (doc, op, text, item, error))
        goto fail;
    }
  if (cls != NULL)
    {
      const char *text;
      g_autofree char *full = NULL;
      if (!fw_yaml_get_string (doc, cls, &text, error))
        goto fail;
      full = g_str_has_prefix (text, "class:") ? g_strdup (text) : g_strconcat ("class:", text, NULL);
      if (!add_alternative (doc, cls, full, item, error))
        goto fail;
    }
  if (alt != NULL && alt->kind == FW_YAML_SEQUENCE)
    {
      if (alt->items->len == 0)
        {
          fw_yaml_error (error, doc, alt, _("“or” lists no alternative"));
          goto fail;
        }
      for (guint k = 0; k < alt->items->len; k++)
        {
          const FwYamlNode *one = g_ptr_array_index (alt->items, k);
          const char *text;
          if (!fw_yaml_get_string (doc, one, &text, error) || !add_alternative (doc, one, text, item, error))
            goto fail;
        }
    }
  else if (alt != NULL)
    {
      const char *text;
      if (!fw_yaml_get_string (doc, alt, &text, error) || !add_alternative (doc, alt, text, item, error))
        goto fail;
    }
  if (item->pub.alternatives->len == 0)
    {
      fw_yaml_error (error, doc, node, _("a pattern item needs “op”, “class” or “or”"));
      goto fail;
    }
  if (repeat != NULL && !parse_repeat (doc, repeat, item, error))
    goto fail;
  return item;

fail:
  item_free (item);
  return NULL;
}

static gboolean
parse_pattern (const FwYamlDocument *doc, const FwYamlNode *node, FwRuleEntry *entry, GError **error)
{
  if (node->kind != FW_YAML_SEQUENCE)
    return fw_yaml_error (error, doc, node, _("the pattern of “%s” must be a list, not %s"), entry->pub.name,
                          fw_yaml_kind_name (node->kind));
  if (node->items->len == 0)
    return fw_yaml_error (error, doc, node, _("“%s” has an empty pattern"), entry->pub.name);
  entry->pattern_loc = loc_of (node);
  for (guint k = 0; k < node->items->len; k++)
    {
      FwRuleItem *item = parse_item (doc, g_ptr_array_index (node->items, k), error);
      if (item == NULL)
        return FALSE;
      g_ptr_array_add (entry->pub.pattern, item);
    }
  return TRUE;
}

static gboolean
parse_choice (const FwYamlDocument *doc, const FwYamlNode *node, const char *what,
              const char * const *names, guint n_names, guint *out, GError **error)
{
  const char *text, *close;
  g_autofree char *list = NULL;

  if (!fw_yaml_get_string (doc, node, &text, error))
    return FALSE;
  for (guint k = 0; k < n_names; k++)
    if (strcmp (text, names[k]) == 0)
      {
        *out = k;
        return TRUE;
      }
  close = fw_rule_closest (text, names, n_names);
  if (close)
    return fw_yaml_error (error, doc, node, _("unknown %s “%s” (did you mean “%s”?)"), what, text, close);
  {
    GString *s = g_string_new (NULL);
    for (guint k = 0; k < n_names; k++)
      g_string_append_printf (s, "%s%s", k ? ", " : "", names[k]);
    list = g_string_free (s, FALSE);
  }
  return fw_yaml_error (error, doc, node, _("unknown %s “%s” (one of %s)"), what, text, list);
}

static gboolean
parse_dtype (const FwYamlDocument *doc, const FwYamlNode *node, guint32 *mask, GError **error)
{
  const char *text, *close;
  const char *names[FW_DTYPE_N_TYPES];
  FwDType dtype;

  if (!fw_yaml_get_string (doc, node, &text, error))
    return FALSE;
  if (fw_dtype_from_name (text, &dtype))
    {
      *mask |= 1u << dtype;
      return TRUE;
    }
  for (guint k = 0; k < FW_DTYPE_N_TYPES; k++)
    names[k] = k == FW_DTYPE_UNDEFINED ? NULL : fw_dtype_name ((FwDType) k);
  close = fw_rule_closest (text, names, FW_DTYPE_N_TYPES);
  if (close)
    return fw_yaml_error (error, doc, node, _("unknown dtype “%s” (did you mean “%s”?)"), text, close);
  return fw_yaml_error (error, doc, node, _("unknown dtype “%s”"), text);
}

/* A dtype or a list of them into a mask. */
static gboolean
parse_dtypes (const FwYamlDocument *doc, const FwYamlNode *node, const char *what, guint32 *mask, GError **error)
{
  if (node->kind != FW_YAML_SEQUENCE)
    return parse_dtype (doc, node, mask, error);
  if (node->items->len == 0)
    return fw_yaml_error (error, doc, node, _("“%s” lists no dtype"), what);
  for (guint k = 0; k < node->items->len; k++)
    if (!parse_dtype (doc, g_ptr_array_index (node->items, k), mask, error))
      return FALSE;
  return TRUE;
}

/* min_dim, max_dim or dim: {KEY: N, …} into bounds. */
static gboolean
parse_dims (const FwYamlDocument *doc, const FwYamlNode *node, const char *what, gint64 *bounds,
            FwRuleEntry *entry, GError **error)
{
  g_autofree char *quoted = g_strdup_printf ("“%s”", what);

  if (!fw_yaml_expect (doc, node, FW_YAML_MAPPING, quoted, error)
      || !fw_yaml_check_keys (doc, node, fw_rule_dim_names, error))
    return FALSE;
  for (guint k = 0; k < FW_RULE_N_DIMS; k++)
    {
      const FwYamlNode *value = fw_yaml_get (node, fw_rule_dim_names[k]);
      gint64 v;

      if (value == NULL)
        continue;
      if (!fw_yaml_get_int (doc, value, 0, G_MAXINT64, &v, error))
        return FALSE;
      bounds[k] = v;
      entry->has_dims = TRUE;
    }
  return TRUE;
}

static gboolean
parse_when (const FwYamlDocument *doc, const FwYamlNode *node, FwRuleEntry *entry, GError **error)
{
  const FwYamlNode *v;

  if (!fw_yaml_expect (doc, node, FW_YAML_MAPPING, "“when”", error)
      || !fw_yaml_check_keys (doc, node, when_keys, error))
    return FALSE;
  if ((v = fw_yaml_get (node, "min_dim")) != NULL && !parse_dims (doc, v, "min_dim", entry->min_dim, entry, error))
    return FALSE;
  if ((v = fw_yaml_get (node, "max_dim")) != NULL && !parse_dims (doc, v, "max_dim", entry->max_dim, entry, error))
    return FALSE;
  if ((v = fw_yaml_get (node, "dim")) != NULL && !parse_dims (doc, v, "dim", entry->eq_dim, entry, error))
    return FALSE;
  for (guint k = 0; k < FW_RULE_N_DIMS; k++)
    if (entry->min_dim[k] >= 0)
      g_hash_table_insert (entry->pub.min_dim, g_strdup (fw_rule_dim_names[k]),
                           g_memdup2 (&entry->min_dim[k], sizeof (gint64)));
  if ((v = fw_yaml_get (node, "dtype")) != NULL && !parse_dtypes (doc, v, "dtype", &entry->pub.dtype_mask, error))
    return FALSE;
  if ((v = fw_yaml_get (node, "operand_dtype")) != NULL)
    {
      if (!fw_yaml_expect (doc, v, FW_YAML_MAPPING, "“operand_dtype”", error)
          || !fw_yaml_check_keys (doc, v, fw_rule_operand_names, error))
        return FALSE;
      for (guint k = 0; k < FW_RULE_N_OPERANDS; k++)
        {
          const FwYamlNode *d = fw_yaml_get (v, fw_rule_operand_names[k]);
          if (d != NULL && !parse_dtypes (doc, d, fw_rule_operand_names[k], &entry->operand_dtype[k], error))
            return FALSE;
          entry->has_operand_dtype |= d != NULL;
        }
    }
  return TRUE;
}

static gboolean
check_unique (const FwYamlDocument *doc, GHashTable *seen, const char *name, const FwYamlNode *where,
              GError **error)
{
  const FwRuleEntry *other = g_hash_table_lookup (seen, name);

  if (other != NULL)
    return fw_yaml_error (error, doc, where, _("“%s” is already defined on line %u"), name, other->pub.line);
  return TRUE;
}

static FwRuleEntry *
parse_rule (const FwYamlDocument *doc, const FwYamlNode *node, GHashTable *seen, GError **error)
{
  const FwYamlNode *name_node, *pattern, *v;
  const char *name;
  FwRuleEntry *entry;

  if (!fw_yaml_expect (doc, node, FW_YAML_MAPPING, _("a rule"), error)
      || !fw_yaml_check_keys (doc, node, rule_keys, error))
    return NULL;
  name_node = fw_yaml_get (node, "name");
  if (name_node == NULL)
    {
      fw_yaml_error (error, doc, node, _("a rule needs a “name”"));
      return NULL;
    }
  if (!fw_yaml_get_string (doc, name_node, &name, error))
    return NULL;
  if (name[0] == '\0')
    {
      fw_yaml_error (error, doc, name_node, _("a rule name must not be empty"));
      return NULL;
    }
  if (!check_unique (doc, seen, name, name_node, error))
    return NULL;
  entry = entry_new (doc, name, node);
  pattern = fw_yaml_get (node, "pattern");
  if (pattern == NULL)
    {
      fw_yaml_error (error, doc, node, _("rule “%s” has no “pattern”"), name);
      goto fail;
    }
  if (!parse_pattern (doc, pattern, entry, error))
    goto fail;
  if ((v = fw_yaml_get (node, "description")) != NULL)
    {
      const char *text;
      if (!fw_yaml_get_string (doc, v, &text, error))
        goto fail;
      entry->description = g_strdup (text);
    }
  if ((v = fw_yaml_get (node, "action")) != NULL)
    {
      guint k;
      if (!parse_choice (doc, v, _("action"), action_names, G_N_ELEMENTS (action_names), &k, error))
        goto fail;
      entry->pub.action = k == 0 ? FW_RULE_PREFER : FW_RULE_FORBID;
    }
  if ((v = fw_yaml_get (node, "strategy")) != NULL)
    {
      guint k;
      if (!parse_choice (doc, v, _("strategy"), strategy_names, G_N_ELEMENTS (strategy_names), &k, error))
        goto fail;
      entry->pub.strategy = (FwRuleStrategy) (FW_RULE_STRATEGY_COMPUTE_MEMORY_PAIRING + k);
    }
  if ((v = fw_yaml_get (node, "priority")) != NULL)
    {
      gint64 p;
      if (!fw_yaml_get_int (doc, v, -PRIORITY_LIMIT, PRIORITY_LIMIT, &p, error))
        goto fail;
      entry->pub.priority = (gint) p;
    }
  if ((v = fw_yaml_get (node, "enabled")) != NULL && !fw_yaml_get_bool (doc, v, &entry->pub.enabled, error))
    goto fail;
  if ((v = fw_yaml_get (node, "when")) != NULL && !parse_when (doc, v, entry, error))
    goto fail;
  return entry;

fail:
  fw_rule_entry_free (entry);
  return NULL;
}

static FwRuleEntry *
parse_subpattern (const FwYamlDocument *doc, const FwYamlNode *key, const FwYamlNode *value, GHashTable *seen,
                  GError **error)
{
  FwRuleEntry *entry;

  if (key->scalar[0] == '\0' || strchr (key->scalar, ':') != NULL)
    {
      fw_yaml_error (error, doc, key, _("“%s” is not a valid sub-pattern name (no colons, not empty)"),
                     key->scalar);
      return NULL;
    }
  if (fw_op_lookup ("", key->scalar) != NULL)
    {
      fw_yaml_error (error, doc, key, _("sub-pattern name “%s” is an op type; choose another name"),
                     key->scalar);
      return NULL;
    }
  if (!check_unique (doc, seen, key->scalar, key, error))
    return NULL;
  entry = entry_new (doc, key->scalar, key);
  entry->pub.is_subpattern = TRUE;
  if (!parse_pattern (doc, value, entry, error))
    {
      fw_rule_entry_free (entry);
      return NULL;
    }
  return entry;
}

GPtrArray *
fw_rule_parse (const FwYamlDocument *doc, GError **error)
{
  g_autoptr(GPtrArray) entries = g_ptr_array_new_with_free_func (fw_rule_entry_free);
  g_autoptr(GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  const FwYamlNode *root = doc->root;
  const FwYamlNode *version, *patterns, *rules;
  gint64 v;

  /* An empty file is a mistake (a truncated copy, a wrong path), not an empty rule set. */
  if (root == NULL)
    {
      fw_yaml_error (error, doc, NULL, _("the file is empty; a rule file starts with “version: 1”"));
      return NULL;
    }
  if (!fw_yaml_expect (doc, root, FW_YAML_MAPPING, _("a rule file"), error)
      || !fw_yaml_check_keys (doc, root, top_keys, error))
    return NULL;
  version = fw_yaml_get (root, "version");
  if (version == NULL)
    {
      fw_yaml_error (error, doc, root, _("“version” is missing (write “version: 1”)"));
      return NULL;
    }
  if (!fw_yaml_get_int (doc, version, G_MININT32, G_MAXINT32, &v, error))
    return NULL;
  if (v != 1)
    {
      fw_yaml_error (error, doc, version, _("rule format version %" PRId64 " is not supported (this build "
                                            "reads version 1)"), v);
      return NULL;
    }
  patterns = fw_yaml_get (root, "patterns");
  if (patterns != NULL)
    {
      if (!fw_yaml_expect (doc, patterns, FW_YAML_MAPPING, "“patterns”", error))
        return NULL;
      for (guint k = 0; k + 1 < patterns->items->len; k += 2)
        {
          FwRuleEntry *entry = parse_subpattern (doc, g_ptr_array_index (patterns->items, k),
                                                 g_ptr_array_index (patterns->items, k + 1), seen, error);
          if (entry == NULL)
            return NULL;
          g_hash_table_insert (seen, entry->pub.name, entry);
          g_ptr_array_add (entries, entry);
        }
    }
  rules = fw_yaml_get (root, "rules");
  if (rules != NULL)
    {
      if (!fw_yaml_expect (doc, rules, FW_YAML_SEQUENCE, "“rules”", error))
        return NULL;
      for (guint k = 0; k < rules->items->len; k++)
        {
          FwRuleEntry *entry = parse_rule (doc, g_ptr_array_index (rules->items, k), seen, error);
          if (entry == NULL)
            return NULL;
          g_hash_table_insert (seen, entry->pub.name, entry);
          g_ptr_array_add (entries, entry);
        }
    }
  return g_steal_pointer (&entries);
}
