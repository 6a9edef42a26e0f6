/* fw-rules.c: rule sets: loading (files, folders, the shipped GResource), resolving names into compiled
 * patterns, and the index the planner's per-candidate lookups go through.
 *
 * Every load is a transaction: the parsed entries are merged into a copy of the set's name table and the
 * whole set is compiled again (so a team file may override a sub-pattern that a shipped rule uses); the
 * set changes only when that succeeds. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <gio/gio.h>
#include <glib/gi18n-lib.h>

#include "fw-error.h"
#include "rules/fw-rules-private.h"

#define RESOURCE_PATH "/org/fusionworkbench/rules"
#define N_CLASSES (FW_OP_CLASS_OPAQUE + 1)

typedef struct
{
  GPtrArray    *blocks;       /* allocations of the compiled tree, g_free'd */
  GStringChunk *strings;
  GHashTable   *sub_seqs;     /* sub-pattern name → FwRuleSeq* */
  GArray       *prefer;       /* FwRuleCompiled, enabled PREFER rules, best first */
  GArray       *forbid;       /* FwRuleCompiled, enabled FORBID rules, best first */
  GHashTable   *by_op;        /* op type (default domain) → GArray of guint (index into prefer) */
  GHashTable   *by_domain;    /* domain → GHashTable (op type → GArray of guint) */
  GArray       *by_class[N_CLASSES];
} Compiled;

struct _FwRuleSet
{
  GPtrArray  *entries;        /* FwRuleEntry*, in order of first definition */
  GHashTable *by_name;        /* name → FwRuleEntry* */
  Compiled   *compiled;
};

static void
compiled_free (Compiled *c)
{
  if (c == NULL)
    return;
  g_ptr_array_unref (c->blocks);
  g_string_chunk_free (c->strings);
  g_hash_table_unref (c->sub_seqs);
  g_array_unref (c->prefer);
  g_array_unref (c->forbid);
  g_hash_table_unref (c->by_op);
  g_hash_table_unref (c->by_domain);
  for (guint k = 0; k < N_CLASSES; k++)
    g_array_unref (c->by_class[k]);
  g_free (c);
}

static Compiled *
compiled_new (void)
{
  Compiled *c = g_new0 (Compiled, 1);

  c->blocks = g_ptr_array_new_with_free_func (g_free);
  c->strings = g_string_chunk_new (256);
  c->sub_seqs = g_hash_table_new (g_str_hash, g_str_equal);
  c->prefer = g_array_new (FALSE, FALSE, sizeof (FwRuleCompiled));
  c->forbid = g_array_new (FALSE, FALSE, sizeof (FwRuleCompiled));
  c->by_op = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, (GDestroyNotify) g_array_unref);
  c->by_domain = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, (GDestroyNotify) g_hash_table_unref);
  for (guint k = 0; k < N_CLASSES; k++)
    c->by_class[k] = g_array_new (FALSE, FALSE, sizeof (guint));
  return c;
}

static gpointer
compiled_alloc (Compiled *c, gsize size)
{
  gpointer p = g_malloc0 (MAX (size, 1));

  g_ptr_array_add (c->blocks, p);
  return p;
}

FwRuleSet *
fw_rule_set_new (void)
{
  FwRuleSet *set = g_new0 (FwRuleSet, 1);

  set->entries = g_ptr_array_new_with_free_func (fw_rule_entry_free);
  set->by_name = g_hash_table_new (g_str_hash, g_str_equal);
  return set;
}

void
fw_rule_set_free (FwRuleSet *set)
{
  if (set == NULL)
    return;
  compiled_free (set->compiled);
  g_hash_table_unref (set->by_name);
  g_ptr_array_unref (set->entries);
  g_free (set);
}

/* Resolving */

typedef struct
{
  Compiled    *c;
  GHashTable  *by_name;   /* the set as it would be */
  GPtrArray   *stack;     /* names of the sub-patterns being compiled, outermost first */
} Resolver;

/* Lengths and costs only need to be known up to their caps: saturate instead of overflowing. */
static guint
capped_add (guint a, guint b, guint cap)
{
  return (guint) MIN ((guint64) a + b, (guint64) cap + 1);
}

static guint
capped_mul (guint a, guint b, guint cap)
{
  return (guint) MIN ((guint64) a * b, (guint64) cap + 1);
}

#define sat_add(a, b) capped_add ((a), (b), FW_RULE_MAX_NODES)
#define sat_mul(a, b) capped_mul ((a), (b), FW_RULE_MAX_NODES)
#define cost_add(a, b) capped_add ((a), (b), FW_RULE_MAX_COST)
#define cost_mul(a, b) capped_mul ((a), (b), FW_RULE_MAX_COST)

static char *
stack_path (const GPtrArray *stack, guint from, const char *last)
{
  GString *s = g_string_new (NULL);

  for (guint k = from; k < stack->len; k++)
    g_string_append_printf (s, "%s → ", (const char *) g_ptr_array_index (stack, k));
  g_string_append (s, last);
  return g_string_free (s, FALSE);
}

static const FwRuleSeq *compile_subpattern (Resolver *r, FwRuleEntry *target, const FwRuleEntry *from,
                                            FwRuleLoc loc, GError **error);

static gboolean
unknown_name (Resolver *r, const FwRuleEntry *from, FwRuleLoc loc, const char *name, GError **error)
{
  g_autoptr(GPtrArray) subs = g_ptr_array_new ();
  GHashTableIter iter;
  gpointer value;
  const char *close;

  g_hash_table_iter_init (&iter, r->by_name);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    if (((FwRuleEntry *) value)->pub.is_subpattern)
      g_ptr_array_add (subs, ((FwRuleEntry *) value)->pub.name);
  g_ptr_array_sort (subs, (GCompareFunc) g_strcmp0); /* deterministic among equally close names */
  close = fw_rule_suggest_op (name, subs);
  if (close)
    return fw_rule_error (error, from->pub.file, loc,
                          _("unknown op type or sub-pattern “%s” (did you mean “%s”?)"), name, close);
  return fw_rule_error (error, from->pub.file, loc, _("unknown op type or sub-pattern “%s”"), name);
}

/* One alternative of an item: an atom, or a sub-pattern's compiled sequence. */
static gboolean
resolve_alt (Resolver *r, const FwRuleEntry *from, const char *text, FwRuleLoc loc, FwRuleAlt *alt,
             GError **error)
{
  g_autofree char *domain = NULL;
  g_autofree char *op_type = NULL;
  const FwOpInfo *info;
  FwRuleEntry *target;

  if (g_str_has_prefix (text, "class:"))
    {
      alt->atom.kind = FW_RULE_ATOM_CLASS;
      if (!fw_rule_class_from_name (text + strlen ("class:"), &alt->atom.op_class))
        return fw_rule_error (error, from->pub.file, loc, _("unknown op class “%s”"), text);
      return TRUE;
    }
  if (fw_rule_split_domain (text, &domain, &op_type))
    {
      if (fw_rule_domain_is_default (domain))
        domain[0] = '\0';
      info = fw_op_lookup (domain, op_type);
      if (info == NULL && domain[0] == '\0')
        return unknown_name (r, from, loc, op_type, error);
      alt->atom.kind = info ? FW_RULE_ATOM_OP : FW_RULE_ATOM_LITERAL;
      alt->atom.info = info;
      alt->atom.domain = g_string_chunk_insert_const (r->c->strings, domain);
      alt->atom.op_type = g_string_chunk_insert_const (r->c->strings, op_type);
      return TRUE;
    }
  info = fw_op_lookup ("", text);
  if (info != NULL)
    {
      alt->atom.kind = FW_RULE_ATOM_OP;
      alt->atom.info = info;
      alt->atom.domain = "";
      alt->atom.op_type = info->op_type;
      return TRUE;
    }
  target = g_hash_table_lookup (r->by_name, text);
  if (target == NULL)
    return unknown_name (r, from, loc, text, error);
  if (!target->pub.is_subpattern)
    return fw_rule_error (error, from->pub.file, loc,
                          _("“%s” is a rule, not a sub-pattern (sub-patterns are defined under “patterns:”)"),
                          text);
  alt->sub = compile_subpattern (r, target, from, loc, error);
  return alt->sub != NULL;
}

static const FwRuleSeq *
compile_pattern (Resolver *r, FwRuleEntry *entry, GError **error)
{
  GPtrArray *pattern = entry->pub.pattern;
  FwRuleSeq *seq = compiled_alloc (r->c, sizeof (FwRuleSeq));

  seq->n_elems = pattern->len;
  seq->elems = compiled_alloc (r->c, pattern->len * sizeof (FwRuleElem));
  for (guint i = 0; i < pattern->len; i++)
    {
      const FwRuleItem *item = g_ptr_array_index (pattern, i);
      FwRuleElem *elem = &seq->elems[i];
      guint alt_min = G_MAXUINT, alt_max = 0, alt_cost = 0;

      elem->repeat_min = item->pub.repeat_min;
      elem->repeat_max = item->pub.repeat_max;
      if (item->pub.kind == FW_PATTERN_CLASS)
        {
          elem->n_alts = 1;
          elem->alts = compiled_alloc (r->c, sizeof (FwRuleAlt));
          elem->alts[0].atom.kind = FW_RULE_ATOM_CLASS;
          elem->alts[0].atom.op_class = item->pub.op_class;
          alt_min = alt_max = alt_cost = 1;
        }
      else
        {
          elem->n_alts = item->pub.alternatives->len;
          elem->alts = compiled_alloc (r->c, elem->n_alts * sizeof (FwRuleAlt));
          for (guint a = 0; a < elem->n_alts; a++)
            {
              FwRuleAlt *alt = &elem->alts[a];
              FwRuleLoc loc = g_array_index (item->alt_locs, FwRuleLoc, a);

              if (!resolve_alt (r, entry, g_ptr_array_index (item->pub.alternatives, a), loc, alt, error))
                return NULL;
              alt_min = MIN (alt_min, alt->sub ? alt->sub->min_len : 1);
              alt_max = MAX (alt_max, alt->sub ? alt->sub->max_len : 1);
              alt_cost = cost_add (alt_cost, alt->sub ? alt->sub->cost : 1);
            }
        }
      seq->min_len = sat_add (seq->min_len, sat_mul (alt_min, elem->repeat_min));
      seq->max_len = sat_add (seq->max_len, sat_mul (alt_max, elem->repeat_max));
      seq->cost = cost_add (seq->cost, cost_mul (alt_cost, elem->repeat_max));
    }
  entry->min_len = seq->min_len;
  entry->max_len = seq->max_len;
  if (seq->max_len > FW_RULE_MAX_NODES)
    return fw_rule_error (error, entry->pub.file, entry->pattern_loc,
                          _("“%s” can expand to more than %u nodes (the largest fusion)"), entry->pub.name,
                          (guint) FW_RULE_MAX_NODES), NULL;
  if (seq->cost > FW_RULE_MAX_COST)
    return fw_rule_error (error, entry->pub.file, entry->pattern_loc,
                          _("“%s” is too complex to match quickly (more than %u node tests at worst); use "
                            "fewer alternatives or repeats"), entry->pub.name, (guint) FW_RULE_MAX_COST), NULL;
  if (seq->min_len == 0 && !entry->pub.is_subpattern)
    return fw_rule_error (error, entry->pub.file, entry->pattern_loc,
                          _("“%s” can match no node at all (every item is optional)"), entry->pub.name), NULL;
  return seq;
}

/* from and loc: the reference being followed, for cycle and nesting errors (from NULL: a top-level check). */
static const FwRuleSeq *
compile_subpattern (Resolver *r, FwRuleEntry *target, const FwRuleEntry *from, FwRuleLoc loc, GError **error)
{
  const FwRuleSeq *seq = g_hash_table_lookup (r->c->sub_seqs, target->pub.name);

  if (seq != NULL)
    return seq;
  for (guint k = 0; k < r->stack->len; k++)
    if (strcmp (g_ptr_array_index (r->stack, k), target->pub.name) == 0)
      {
        g_autofree char *path = stack_path (r->stack, k, target->pub.name);
        return fw_rule_error (error, from->pub.file, loc, _("sub-patterns form a cycle: %s"), path), NULL;
      }
  if (r->stack->len >= FW_RULE_MAX_NESTING)
    {
      g_autofree char *path = stack_path (r->stack, 0, target->pub.name);
      return fw_rule_error (error, from->pub.file, loc, _("sub-patterns nest more than %u deep: %s"),
                            (guint) FW_RULE_MAX_NESTING, path), NULL;
    }
  g_ptr_array_add (r->stack, target->pub.name);
  seq = compile_pattern (r, target, error);
  g_ptr_array_remove_index (r->stack, r->stack->len - 1);
  if (seq != NULL)
    g_hash_table_insert (r->c->sub_seqs, target->pub.name, (gpointer) seq);
  return seq;
}

static gint
compare_compiled (gconstpointer pa, gconstpointer pb)
{
  const FwRuleCompiled *a = pa, *b = pb;

  if (a->entry->pub.priority != b->entry->pub.priority)
    return a->entry->pub.priority > b->entry->pub.priority ? -1 : 1;
  if (a->seq->min_len != b->seq->min_len)
    return a->seq->min_len > b->seq->min_len ? -1 : 1;
  return strcmp (a->entry->pub.name, b->entry->pub.name);
}

/* The atoms a match of seq can begin with. */
static void
collect_first (const FwRuleSeq *seq, GPtrArray *atoms)
{
  for (guint e = 0; e < seq->n_elems; e++)
    {
      const FwRuleElem *elem = &seq->elems[e];
      gboolean may_be_empty = elem->repeat_min == 0;

      for (guint a = 0; a < elem->n_alts; a++)
        {
          if (elem->alts[a].sub != NULL)
            {
              collect_first (elem->alts[a].sub, atoms);
              may_be_empty |= elem->alts[a].sub->min_len == 0;
            }
          else
            g_ptr_array_add (atoms, (gpointer) &elem->alts[a].atom);
        }
      if (!may_be_empty)
        break;
    }
}

static void
bucket_add (GArray *bucket, guint rank)
{
  if (bucket->len == 0 || g_array_index (bucket, guint, bucket->len - 1) != rank)
    g_array_append_val (bucket, rank);
}

static GArray *
op_bucket (GHashTable *table, const char *op_type)
{
  GArray *bucket = g_hash_table_lookup (table, op_type);

  if (bucket == NULL)
    {
      bucket = g_array_new (FALSE, FALSE, sizeof (guint));
      g_hash_table_insert (table, (gpointer) op_type, bucket);
    }
  return bucket;
}

static void
build_index (Compiled *c)
{
  g_autoptr(GPtrArray) atoms = g_ptr_array_new ();

  for (guint rank = 0; rank < c->prefer->len; rank++)
    {
      const FwRuleCompiled *rc = &g_array_index (c->prefer, FwRuleCompiled, rank);

      g_ptr_array_set_size (atoms, 0);
      collect_first (rc->seq, atoms);
      for (guint k = 0; k < atoms->len; k++)
        {
          const FwRuleAtom *atom = g_ptr_array_index (atoms, k);

          if (atom->kind == FW_RULE_ATOM_CLASS)
            bucket_add (c->by_class[atom->op_class], rank);
          else if (atom->domain[0] == '\0')
            bucket_add (op_bucket (c->by_op, atom->op_type), rank);
          else
            {
              GHashTable *ops = g_hash_table_lookup (c->by_domain, atom->domain);
              if (ops == NULL)
                {
                  ops = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, (GDestroyNotify) g_array_unref);
                  g_hash_table_insert (c->by_domain, (gpointer) atom->domain, ops);
                }
              bucket_add (op_bucket (ops, atom->op_type), rank);
            }
        }
    }
}

/* Compiles entries (the set as it would be); fresh ones first so their errors come first. */
static Compiled *
compile_all (GPtrArray *entries, GHashTable *by_name, GPtrArray *fresh, GError **error)
{
  Compiled *c = compiled_new ();
  g_autoptr(GPtrArray) stack = g_ptr_array_new ();
  g_autoptr(GPtrArray) order = g_ptr_array_new ();
  Resolver r = { c, by_name, stack };

  for (guint k = 0; k < fresh->len; k++)
    if (g_ptr_array_find (entries, g_ptr_array_index (fresh, k), NULL))
      g_ptr_array_add (order, g_ptr_array_index (fresh, k));
  for (guint k = 0; k < entries->len; k++)
    if (!g_ptr_array_find (order, g_ptr_array_index (entries, k), NULL))
      g_ptr_array_add (order, g_ptr_array_index (entries, k));
  for (guint k = 0; k < order->len; k++)
    {
      FwRuleEntry *entry = g_ptr_array_index (order, k);
      FwRuleCompiled rc = { entry, NULL };
      FwRuleLoc here = { entry->pub.line, entry->pub.column };

      rc.seq = entry->pub.is_subpattern ? compile_subpattern (&r, entry, entry, here, error)
                                        : compile_pattern (&r, entry, error);
      if (rc.seq == NULL)
        {
          compiled_free (c);
          return NULL;
        }
      if (entry->pub.is_subpattern || !entry->pub.enabled)
        continue;
      g_array_append_val (entry->pub.action == FW_RULE_FORBID ? c->forbid : c->prefer, rc);
    }
  g_array_sort (c->prefer, compare_compiled);
  g_array_sort (c->forbid, compare_compiled);
  build_index (c);
  return c;
}

/* Merges the entries of each parsed file (GPtrArray of FwRuleEntry*, in load order) into the set, or
 * leaves it unchanged on error. Takes the entries. */
static gboolean
commit (FwRuleSet *set, GPtrArray *files, GError **error)
{
  g_autoptr(GPtrArray) fresh = g_ptr_array_new_with_free_func (fw_rule_entry_free);
  g_autoptr(GPtrArray) entries = g_ptr_array_copy (set->entries, NULL, NULL);
  g_autoptr(GHashTable) by_name = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GHashTable) kept = g_hash_table_new (NULL, NULL);
  g_autofree guint *lengths = g_new (guint, 2 * set->entries->len + 1);
  Compiled *c;

  g_ptr_array_set_free_func (entries, NULL); /* the copy inherits the set's free function */

  for (guint k = 0; k < set->entries->len; k++)
    {
      FwRuleEntry *entry = g_ptr_array_index (set->entries, k);
      g_hash_table_insert (by_name, entry->pub.name, entry);
      lengths[2 * k] = entry->min_len;
      lengths[2 * k + 1] = entry->max_len;
    }
  for (guint f = 0; f < files->len; f++)
    {
      GPtrArray *file = g_ptr_array_index (files, f);
      for (guint k = 0; k < file->len; k++)
        {
          FwRuleEntry *entry = g_ptr_array_index (file, k);
          FwRuleEntry *old = g_hash_table_lookup (by_name, entry->pub.name);
          guint index;

          g_ptr_array_add (fresh, entry);
          if (old != NULL && g_ptr_array_find (entries, old, &index))
            entries->pdata[index] = entry;
          else
            g_ptr_array_add (entries, entry);
          g_hash_table_replace (by_name, entry->pub.name, entry);
        }
      g_ptr_array_set_free_func (file, NULL);
    }
  c = compile_all (entries, by_name, fresh, error);
  if (c == NULL)
    {
      /* fresh frees the new entries; the set's own get back the lengths its compiled patterns have */
      for (guint k = 0; k < set->entries->len; k++)
        {
          FwRuleEntry *entry = g_ptr_array_index (set->entries, k);
          entry->min_len = lengths[2 * k];
          entry->max_len = lengths[2 * k + 1];
        }
      return FALSE;
    }

  for (guint k = 0; k < entries->len; k++)
    g_hash_table_add (kept, g_ptr_array_index (entries, k));
  g_ptr_array_set_free_func (fresh, NULL);
  for (guint k = 0; k < fresh->len; k++)
    if (!g_hash_table_contains (kept, g_ptr_array_index (fresh, k)))
      fw_rule_entry_free (g_ptr_array_index (fresh, k));
  g_ptr_array_set_free_func (set->entries, NULL);
  for (guint k = 0; k < set->entries->len; k++)
    if (!g_hash_table_contains (kept, g_ptr_array_index (set->entries, k)))
      fw_rule_entry_free (g_ptr_array_index (set->entries, k));
  g_ptr_array_unref (set->entries);
  set->entries = g_ptr_array_copy (entries, NULL, NULL);
  g_ptr_array_set_free_func (set->entries, fw_rule_entry_free);
  g_hash_table_unref (set->by_name);
  set->by_name = g_steal_pointer (&by_name);
  compiled_free (set->compiled);
  set->compiled = c;
  return TRUE;
}

/* Our format, or the articles' dialect converted into it (read as the same file). */
static GPtrArray *
parse_document (const FwYamlDocument *doc, GError **error)
{
  g_autofree char *converted = NULL;
  g_autoptr(FwYamlDocument) ours = NULL;
  g_autoptr(GError) local = NULL;
  GPtrArray *entries;

  if (!fw_rule_dialect_detect (doc))
    return fw_rule_parse (doc, error);
  converted = fw_rule_dialect_convert (doc, error);
  if (converted == NULL)
    return NULL;
  ours = fw_yaml_load_data (doc->filename, converted, strlen (converted), &local);
  entries = ours != NULL ? fw_rule_parse (ours, &local) : NULL;
  if (entries == NULL)
    g_set_error (error, FW_ERROR, FW_ERROR_INVALID, _("%s, as converted from the fusion_rules dialect "
                                                      "(fusion-workbench --convert-rules shows it): %s"),
                 doc->filename, local->message);
  return entries;
}

char *
fw_rule_convert_file (const char *path, GError **error)
{
  g_autoptr(FwYamlDocument) doc = fw_yaml_load_file (path, error);

  if (doc == NULL)
    return NULL;
  if (!fw_rule_dialect_detect (doc))
    {
      g_set_error (error, FW_ERROR, FW_ERROR_INVALID,
                   _("%s: not a fusion_rules file (no top-level “fusion_rules” key); it is read as it is"), path);
      return NULL;
    }
  return fw_rule_dialect_convert (doc, error);
}

gboolean
fw_rule_set_load_data (FwRuleSet *set, const char *display_name, const char *data, gsize len, GError **error)
{
  g_autoptr(FwYamlDocument) doc = NULL;
  g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);
  GPtrArray *entries;

  g_return_val_if_fail (set != NULL, FALSE);
  doc = fw_yaml_load_data (display_name, data, len, error);
  if (doc == NULL)
    return FALSE;
  entries = parse_document (doc, error);
  if (entries == NULL)
    return FALSE;
  g_ptr_array_add (files, entries);
  return commit (set, files, error);
}

static gint
compare_names (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

gboolean
fw_rule_set_load_path (FwRuleSet *set, const char *file_or_dir, GError **error)
{
  g_autoptr(GPtrArray) files = NULL;

  g_return_val_if_fail (set != NULL && file_or_dir != NULL, FALSE);
  if ((files = fw_yaml_parse_files (file_or_dir, parse_document, error)) == NULL)
    return FALSE;
  return commit (set, files, error);
}

gboolean
fw_rule_set_load_builtin (FwRuleSet *set, GError **error)
{
  g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);
  g_autoptr(GError) local = NULL;
  g_auto(GStrv) names = NULL;
  GResource *resource = fw_rules_get_resource ();

  g_return_val_if_fail (set != NULL, FALSE);
  names = g_resource_enumerate_children (resource, RESOURCE_PATH, G_RESOURCE_LOOKUP_FLAGS_NONE, &local);
  if (names == NULL)
    {
      g_set_error (error, FW_ERROR, FW_ERROR_INTERNAL, "%s", local->message);
      return FALSE;
    }
  qsort (names, g_strv_length (names), sizeof (char *), compare_names);
  for (guint k = 0; names[k]; k++)
    {
      g_autofree char *path = g_strconcat (RESOURCE_PATH "/", names[k], NULL);
      g_autofree char *uri = g_strconcat ("resource://", path, NULL);
      g_autoptr(GBytes) bytes = NULL;
      g_autoptr(FwYamlDocument) doc = NULL;
      GPtrArray *entries;
      gsize len;
      const char *data;

      if (!fw_yaml_is_yaml_name (names[k]))
        continue;
      bytes = g_resource_lookup_data (resource, path, G_RESOURCE_LOOKUP_FLAGS_NONE, &local);
      if (bytes == NULL)
        {
          g_set_error (error, FW_ERROR, FW_ERROR_INTERNAL, "%s", local->message);
          return FALSE;
        }
      data = g_bytes_get_data (bytes, &len);
      doc = fw_yaml_load_data (uri, data, len, error);
      if (doc == NULL || (entries = parse_document (doc, error)) == NULL)
        {
          /* The shipped rules are tested; failing here is a bug of ours. */
          if (error && *error)
            (*error)->code = FW_ERROR_INTERNAL;
          return FALSE;
        }
      g_ptr_array_add (files, entries);
    }
  if (!commit (set, files, error))
    {
      if (error && *error)
        (*error)->code = FW_ERROR_INTERNAL;
      return FALSE;
    }
  return TRUE;
}

guint
fw_rule_set_get_n_rules (const FwRuleSet *set)
{
  g_return_val_if_fail (set != NULL, 0);
  return set->entries->len;
}

const FwRule *
fw_rule_set_get_rule (const FwRuleSet *set, guint index)
{
  g_return_val_if_fail (set != NULL, NULL);
  g_return_val_if_fail (index < set->entries->len, NULL);
  return g_ptr_array_index (set->entries, index);
}

const FwRule *
fw_rule_set_lookup (const FwRuleSet *set, const char *name)
{
  g_return_val_if_fail (set != NULL && name != NULL, NULL);
  return g_hash_table_lookup (set->by_name, name);
}

static const GArray *
first_op_bucket (const Compiled *c, const FwNode *node)
{
  GHashTable *ops;

  if (fw_rule_domain_is_default (node->domain))
    return g_hash_table_lookup (c->by_op, node->op_type);
  ops = g_hash_table_lookup (c->by_domain, node->domain);
  return ops ? g_hash_table_lookup (ops, node->op_type) : NULL;
}

/* Runs the prefer rules that can begin with nodes[0], best first, until one matches with its `when`
 * holding (returned); misses, when not NULL, gets the better ones whose `when` did not. */
static const FwRule *
match_prefer (const FwRuleSet *set, FwNode * const *nodes, guint n_nodes, GPtrArray *misses)
{
  const Compiled *c;
  const GArray *a, *b;
  guint i = 0, j = 0;

  g_return_val_if_fail (set != NULL, NULL);
  c = set->compiled;
  if (c == NULL || n_nodes == 0 || n_nodes > FW_RULE_MAX_NODES || c->prefer->len == 0)
    return NULL;
  a = first_op_bucket (c, nodes[0]);
  b = c->by_class[fw_rule_node_class (nodes[0])];
  /* Both buckets hold ranks in ascending order: merge them, best rule first. */
  for (;;)
    {
      guint ra = a && i < a->len ? g_array_index (a, guint, i) : G_MAXUINT;
      guint rb = j < b->len ? g_array_index (b, guint, j) : G_MAXUINT;
      guint rank = MIN (ra, rb);
      const FwRuleCompiled *rc;
      char *unmet = NULL;

      if (rank == G_MAXUINT)
        return NULL;
      if (ra == rank)
        i++;
      if (rb == rank)
        j++;
      rc = &g_array_index (c->prefer, FwRuleCompiled, rank);
      if (!fw_rule_seq_match_full (rc->seq, nodes, n_nodes))
        continue;
      if (fw_rule_when_check (rc->entry, nodes, 0, n_nodes, misses ? &unmet : NULL))
        return &rc->entry->pub;
      if (misses != NULL)
        {
          FwRuleMiss *miss = g_new0 (FwRuleMiss, 1);
          miss->rule = &rc->entry->pub;
          miss->condition = unmet;
          g_ptr_array_add (misses, miss);
        }
    }
}

const FwRule *
fw_rule_set_match (const FwRuleSet *set, FwNode * const *nodes, guint n_nodes)
{
  return match_prefer (set, nodes, n_nodes, NULL);
}

void
fw_rule_miss_free (FwRuleMiss *miss)
{
  if (miss == NULL)
    return;
  g_free (miss->condition);
  g_free (miss);
}

const FwRule *
fw_rule_set_match_explain (const FwRuleSet *set, FwNode * const *nodes, guint n_nodes, GPtrArray *misses)
{
  g_return_val_if_fail (misses != NULL, NULL);
  return match_prefer (set, nodes, n_nodes, misses);
}

const FwRule *
fw_rule_set_forbids (const FwRuleSet *set, FwNode * const *nodes, guint n_nodes)
{
  const Compiled *c;

  g_return_val_if_fail (set != NULL, NULL);
  c = set->compiled;
  if (c == NULL || n_nodes == 0)
    return NULL;
  for (guint k = 0; k < c->forbid->len; k++)
    {
      const FwRuleCompiled *rc = &g_array_index (c->forbid, FwRuleCompiled, k);
      if (fw_rule_forbid_matches (rc, nodes, n_nodes))
        return &rc->entry->pub;
    }
  return NULL;
}

const char *
fw_rule_get_description (const FwRule *rule)
{
  g_return_val_if_fail (rule != NULL, NULL);
  return ((const FwRuleEntry *) rule)->description;
}

void
fw_rule_get_length_range (const FwRule *rule, guint *min_nodes, guint *max_nodes)
{
  const FwRuleEntry *entry = (const FwRuleEntry *) rule;

  g_return_if_fail (rule != NULL);
  if (min_nodes)
    *min_nodes = entry->min_len;
  if (max_nodes)
    *max_nodes = entry->max_len;
}

const char *
fw_rule_strategy_name (FwRuleStrategy strategy)
{
  switch (strategy)
    {
    case FW_RULE_STRATEGY_COMPUTE_MEMORY_PAIRING: return "compute_memory_pairing";
    case FW_RULE_STRATEGY_ELEMENTWISE_CHAIN: return "elementwise_chain";
    case FW_RULE_STRATEGY_REDUCE_EPILOGUE: return "reduce_epilogue";
    case FW_RULE_STRATEGY_SEQUENTIAL: return "sequential";
    case FW_RULE_STRATEGY_ANY:
    default: return "any";
    }
}

const char *
fw_rule_action_name (FwRuleAction action)
{
  return action == FW_RULE_FORBID ? "forbid" : "prefer";
}

char *
fw_rule_format_pattern (const FwRule *rule)
{
  GString *s = g_string_new ("[");

  g_return_val_if_fail (rule != NULL, NULL);
  for (guint i = 0; i < rule->pattern->len; i++)
    {
      const FwPatternItem *item = g_ptr_array_index (rule->pattern, i);
      gboolean repeated = item->repeat_min != 1 || item->repeat_max != 1;
      gboolean multi = item->kind == FW_PATTERN_ANY_OF && item->alternatives->len > 1;

      if (i > 0)
        g_string_append (s, ", ");
      if (repeated || multi)
        g_string_append (s, "{op: ");
      if (item->kind == FW_PATTERN_OP)
        g_string_append (s, item->op);
      else if (item->kind == FW_PATTERN_CLASS)
        g_string_append_printf (s, "class:%s", fw_op_class_name (item->op_class));
      else
        g_string_append (s, g_ptr_array_index (item->alternatives, 0));
      if (multi)
        {
          g_string_append (s, ", or: ");
          if (item->alternatives->len > 2)
            g_string_append_c (s, '[');
          for (guint a = 1; a < item->alternatives->len; a++)
            g_string_append_printf (s, "%s%s", a > 1 ? ", " : "",
                                    (const char *) g_ptr_array_index (item->alternatives, a));
          if (item->alternatives->len > 2)
            g_string_append_c (s, ']');
        }
      if (repeated && item->repeat_min == item->repeat_max)
        g_string_append_printf (s, ", repeat: %u", item->repeat_min);
      else if (repeated)
        g_string_append_printf (s, ", repeat: [%u, %u]", item->repeat_min, item->repeat_max);
      if (repeated || multi)
        g_string_append_c (s, '}');
    }
  g_string_append_c (s, ']');
  return g_string_free (s, FALSE);
}
