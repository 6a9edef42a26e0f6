#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>
#include <yaml.h>

#include "fw-error.h"
#include "fw-yaml.h"

static void
node_free (gpointer data)
{
  FwYamlNode *node = data;

  if (node == NULL)
    return;
  g_free (node->scalar);
  g_clear_pointer (&node->items, g_ptr_array_unref);
  g_free (node);
}

void
fw_yaml_document_free (FwYamlDocument *doc)
{
  if (doc == NULL)
    return;
  node_free (doc->root);
  g_free (doc->filename);
  g_free (doc);
}

const char *
fw_yaml_kind_name (FwYamlKind kind)
{
  switch (kind)
    {
    case FW_YAML_SCALAR: return _("a scalar");
    case FW_YAML_SEQUENCE: return _("a list");
    case FW_YAML_MAPPING: return _("a mapping");
    default: return "?";
    }
}

gboolean
fw_yaml_error (GError **error, const FwYamlDocument *doc, const FwYamlNode *node, const char *format, ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (error, FW_ERROR, FW_ERROR_PARSE, "%s:%u:%u: %s", doc->filename, node ? node->line : 1,
               node ? node->column : 1, message);
  return FALSE;
}

typedef struct
{
  yaml_parser_t parser;
  const char   *filename;
  guint         n_nodes;
} Reader;

static gboolean
parser_error (Reader *r, GError **error)
{
  g_set_error (error, FW_ERROR, FW_ERROR_PARSE, "%s:%zu:%zu: %s%s%s", r->filename,
               r->parser.problem_mark.line + 1, r->parser.problem_mark.column + 1,
               r->parser.problem ? r->parser.problem : _("malformed YAML"),
               r->parser.context ? ", " : "", r->parser.context ? r->parser.context : "");
  return FALSE;
}

static gboolean
event_error (Reader *r, const yaml_event_t *event, GError **error, const char *message)
{
  g_set_error (error, FW_ERROR, FW_ERROR_PARSE, "%s:%zu:%zu: %s", r->filename, event->start_mark.line + 1,
               event->start_mark.column + 1, message);
  return FALSE;
}

static FwYamlNode *read_node (Reader *r, yaml_event_t *event, guint depth, GError **error);

/* Reads the children of a collection whose start event was consumed, up to its end event. */
static gboolean
read_children (Reader *r, FwYamlNode *node, yaml_event_type_t end_type, guint depth, GError **error)
{
  for (;;)
    {
      yaml_event_t event;
      FwYamlNode *child;

      if (!yaml_parser_parse (&r->parser, &event))
        return parser_error (r, error);
      if (event.type == end_type)
        {
          yaml_event_delete (&event);
          break;
        }
      child = read_node (r, &event, depth + 1, error);
      yaml_event_delete (&event);
      if (child == NULL)
        return FALSE;
      g_ptr_array_add (node->items, child);
    }
  if (node->kind == FW_YAML_MAPPING)
    {
      /* Keys must be scalars and unique: a repeated key silently overriding another is a trap. A hash
         keeps the check linear: a hostile mapping may hold half a million keys. */
      g_autoptr(GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);

      for (guint i = 0; i < node->items->len; i += 2)
        {
          FwYamlNode *key = g_ptr_array_index (node->items, i);
          FwYamlNode *other;

          if (key->kind != FW_YAML_SCALAR)
            {
              g_set_error (error, FW_ERROR, FW_ERROR_PARSE, _("%s:%u:%u: mapping keys must be plain text"),
                           r->filename, key->line, key->column);
              return FALSE;
            }
          other = g_hash_table_lookup (seen, key->scalar);
          if (other != NULL)
            {
              g_set_error (error, FW_ERROR, FW_ERROR_PARSE,
                           _("%s:%u:%u: key “%s” repeats the one on line %u"), r->filename, key->line,
                           key->column, key->scalar, other->line);
              return FALSE;
            }
          g_hash_table_insert (seen, key->scalar, key);
        }
    }
  return TRUE;
}

static FwYamlNode *
read_node (Reader *r, yaml_event_t *event, guint depth, GError **error)
{
  FwYamlNode *node;

  if (depth > FW_YAML_MAX_DEPTH)
    {
      event_error (r, event, error, _("nested more than 64 levels deep"));
      return NULL;
    }
  if (++r->n_nodes > FW_YAML_MAX_NODES)
    {
      event_error (r, event, error, _("more than 1,000,000 nodes"));
      return NULL;
    }
  switch (event->type)
    {
    case YAML_ALIAS_EVENT:
      event_error (r, event, error, _("aliases (*name) are not supported; write the value out"));
      return NULL;
    case YAML_SCALAR_EVENT:
      if (event->data.scalar.anchor)
        {
          event_error (r, event, error, _("anchors (&name) are not supported"));
          return NULL;
        }
      if (event->data.scalar.length > FW_YAML_MAX_SCALAR)
        {
          event_error (r, event, error, _("a value longer than 64 KiB"));
          return NULL;
        }
      node = g_new0 (FwYamlNode, 1);
      node->kind = FW_YAML_SCALAR;
      node->scalar = g_strndup ((const char *) event->data.scalar.value, event->data.scalar.length);
      node->plain = event->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
      break;
    case YAML_SEQUENCE_START_EVENT:
    case YAML_MAPPING_START_EVENT:
      {
        gboolean seq = event->type == YAML_SEQUENCE_START_EVENT;
        if ((seq ? event->data.sequence_start.anchor : event->data.mapping_start.anchor) != NULL)
          {
            event_error (r, event, error, _("anchors (&name) are not supported"));
            return NULL;
          }
        node = g_new0 (FwYamlNode, 1);
        node->kind = seq ? FW_YAML_SEQUENCE : FW_YAML_MAPPING;
        node->items = g_ptr_array_new_with_free_func (node_free);
        node->line = event->start_mark.line + 1;
        node->column = event->start_mark.column + 1;
        if (!read_children (r, node, seq ? YAML_SEQUENCE_END_EVENT : YAML_MAPPING_END_EVENT, depth, error))
          {
            node_free (node);
            return NULL;
          }
        return node;
      }
    default:
      event_error (r, event, error, _("unexpected YAML event"));
      return NULL;
    }
  node->line = event->start_mark.line + 1;
  node->column = event->start_mark.column + 1;
  return node;
}

FwYamlDocument *
fw_yaml_load_data (const char *display_name, const char *data, gsize len, GError **error)
{
  g_autoptr(FwYamlDocument) doc = g_new0 (FwYamlDocument, 1);
  Reader r = { 0 };
  gboolean ok = TRUE;

  doc->filename = g_strdup (display_name);
  if (len > FW_YAML_MAX_BYTES)
    {
      g_set_error (error, FW_ERROR, FW_ERROR_LIMIT, _("%s: larger than 16 MiB"), display_name);
      return NULL;
    }
  if (!g_utf8_validate (data, len, NULL))
    {
      g_set_error (error, FW_ERROR, FW_ERROR_PARSE, _("%s: not valid UTF-8"), display_name);
      return NULL;
    }
  r.filename = display_name;
  yaml_parser_initialize (&r.parser);
  yaml_parser_set_input_string (&r.parser, (const unsigned char *) data, len);
  for (gboolean done = FALSE; ok && !done;)
    {
      yaml_event_t event;

      if (!yaml_parser_parse (&r.parser, &event))
        {
          ok = parser_error (&r, error);
          break;
        }
      switch (event.type)
        {
        case YAML_STREAM_START_EVENT:
        case YAML_DOCUMENT_START_EVENT:
          break;
        case YAML_DOCUMENT_END_EVENT:
          {
            /* One document per file: whatever follows would be silently ignored otherwise. */
            yaml_event_t next;
            if (!yaml_parser_parse (&r.parser, &next))
              {
                ok = parser_error (&r, error);
                break;
              }
            if (next.type != YAML_STREAM_END_EVENT)
              ok = event_error (&r, &next, error, _("a second YAML document; a file holds exactly one"));
            yaml_event_delete (&next);
            done = TRUE;
          }
          break;
        case YAML_STREAM_END_EVENT:
          done = TRUE;
          break;
        default:
          doc->root = read_node (&r, &event, 0, error);
          ok = doc->root != NULL;
          break;
        }
      yaml_event_delete (&event);
    }
  yaml_parser_delete (&r.parser);
  if (!ok)
    return NULL;
  return g_steal_pointer (&doc);
}

FwYamlDocument *
fw_yaml_load_file (const char *path, GError **error)
{
  g_autofree char *data = NULL;
  gsize len = 0;
  GError *local = NULL;

  if (g_file_test (path, G_FILE_TEST_IS_REGULAR))
    {
      GStatBuf st;
      if (g_stat (path, &st) == 0 && st.st_size > FW_YAML_MAX_BYTES)
        {
          g_set_error (error, FW_ERROR, FW_ERROR_LIMIT, _("%s: larger than 16 MiB"), path);
          return NULL;
        }
    }
  else if (g_file_test (path, G_FILE_TEST_EXISTS))
    {
      g_set_error (error, FW_ERROR, FW_ERROR_IO, _("%s: not a regular file"), path);
      return NULL;
    }
  if (!g_file_get_contents (path, &data, &len, &local))
    {
      g_set_error (error, FW_ERROR, FW_ERROR_IO, "%s", local->message);
      g_error_free (local);
      return NULL;
    }
  return fw_yaml_load_data (path, data, len, error);
}

gboolean
fw_yaml_expect (const FwYamlDocument *doc, const FwYamlNode *node, FwYamlKind kind, const char *what,
                GError **error)
{
  if (node == NULL)
    return fw_yaml_error (error, doc, NULL, _("%s is missing"), what);
  if (node->kind != kind)
    return fw_yaml_error (error, doc, node, _("%s must be %s, not %s"), what, fw_yaml_kind_name (kind),
                          fw_yaml_kind_name (node->kind));
  return TRUE;
}

const FwYamlNode *
fw_yaml_get (const FwYamlNode *mapping, const char *key)
{
  if (mapping == NULL || mapping->kind != FW_YAML_MAPPING)
    return NULL;
  for (guint i = 0; i + 1 < mapping->items->len; i += 2)
    {
      FwYamlNode *k = g_ptr_array_index (mapping->items, i);
      if (strcmp (k->scalar, key) == 0)
        return g_ptr_array_index (mapping->items, i + 1);
    }
  return NULL;
}

guint
fw_yaml_edit_distance (const char *a, const char *b)
{
  gsize la = strlen (a), lb = strlen (b);
  g_autofree guint *row = NULL;

  if (la > 64 || lb > 64)
    return G_MAXUINT;
  row = g_new (guint, lb + 1);
  for (gsize j = 0; j <= lb; j++)
    row[j] = j;
  for (gsize i = 1; i <= la; i++)
    {
      guint prev = row[0];
      row[0] = i;
      for (gsize j = 1; j <= lb; j++)
        {
          guint cur = row[j];
          guint sub = prev + (a[i - 1] != b[j - 1]);
          row[j] = MIN (MIN (row[j] + 1, row[j - 1] + 1), sub);
          prev = cur;
        }
    }
  return row[lb];
}

gboolean
fw_yaml_check_keys (const FwYamlDocument *doc, const FwYamlNode *mapping, const char * const *allowed,
                    GError **error)
{
  for (guint i = 0; i < mapping->items->len; i += 2)
    {
      FwYamlNode *key = g_ptr_array_index (mapping->items, i);
      const char *best = NULL;
      guint best_d = 3;

      if (g_strv_contains (allowed, key->scalar))
        continue;
      for (guint k = 0; allowed[k]; k++)
        {
          guint d = fw_yaml_edit_distance (key->scalar, allowed[k]);
          if (d < best_d)
            {
              best_d = d;
              best = allowed[k];
            }
        }
      if (best)
        return fw_yaml_error (error, doc, key, _("unknown key “%s” (did you mean “%s”?)"), key->scalar, best);
      {
        g_autofree char *list = g_strjoinv (", ", (char **) allowed);
        return fw_yaml_error (error, doc, key, _("unknown key “%s” (allowed: %s)"), key->scalar, list);
      }
    }
  return TRUE;
}

gboolean
fw_yaml_get_string (const FwYamlDocument *doc, const FwYamlNode *node, const char **out, GError **error)
{
  if (!fw_yaml_expect (doc, node, FW_YAML_SCALAR, _("the value"), error))
    return FALSE;
  *out = node->scalar;
  return TRUE;
}

gboolean
fw_yaml_get_int (const FwYamlDocument *doc, const FwYamlNode *node, gint64 min, gint64 max, gint64 *out,
                 GError **error)
{
  char *end = NULL;
  gint64 v;

  if (!fw_yaml_expect (doc, node, FW_YAML_SCALAR, _("the value"), error))
    return FALSE;
  errno = 0;
  v = g_ascii_strtoll (node->scalar, &end, 10);
  if (node->scalar[0] == '\0' || *end != '\0' || errno == ERANGE)
    return fw_yaml_error (error, doc, node, _("“%s” is not a whole number"), node->scalar);
  if (v < min || v > max)
    return fw_yaml_error (error, doc, node, _("%" PRId64 " is out of range (%" PRId64
                                              " to %" PRId64 ")"), v, min, max);
  *out = v;
  return TRUE;
}

gboolean
fw_yaml_get_double (const FwYamlDocument *doc, const FwYamlNode *node, double min, double max, double *out,
                    GError **error)
{
  char *end = NULL;
  double v;

  if (!fw_yaml_expect (doc, node, FW_YAML_SCALAR, _("the value"), error))
    return FALSE;
  errno = 0;
  v = g_ascii_strtod (node->scalar, &end);
  if (node->scalar[0] == '\0' || *end != '\0' || errno == ERANGE || !isfinite (v))
    return fw_yaml_error (error, doc, node, _("“%s” is not a number"), node->scalar);
  if (v < min || v > max)
    return fw_yaml_error (error, doc, node, _("%g is out of range (%g to %g)"), v, min, max);
  *out = v;
  return TRUE;
}

gboolean
fw_yaml_get_bool (const FwYamlDocument *doc, const FwYamlNode *node, gboolean *out, GError **error)
{
  if (!fw_yaml_expect (doc, node, FW_YAML_SCALAR, _("the value"), error))
    return FALSE;
  if (node->plain && (strcmp (node->scalar, "true") == 0 || strcmp (node->scalar, "yes") == 0))
    *out = TRUE;
  else if (node->plain && (strcmp (node->scalar, "false") == 0 || strcmp (node->scalar, "no") == 0))
    *out = FALSE;
  else
    return fw_yaml_error (error, doc, node, _("“%s” is not true or false"), node->scalar);
  return TRUE;
}

typedef struct
{
  const char *suffix;
  double      factor;
} Unit;

static const Unit byte_units[] = {
  { "B", 1 }, { "KiB", 1024.0 }, { "MiB", 1048576.0 }, { "GiB", 1073741824.0 },
  { "KB", 1e3 }, { "MB", 1e6 }, { "GB", 1e9 }, { "TB", 1e12 }, { NULL, 0 },
};
static const Unit rate_units[] = {
  { "B/s", 1 }, { "KB/s", 1e3 }, { "MB/s", 1e6 }, { "GB/s", 1e9 }, { "TB/s", 1e12 },
  { "GiB/s", 1073741824.0 }, { NULL, 0 },
};
static const Unit flop_units[] = {
  { "FLOP/s", 1 }, { "MFLOP/s", 1e6 }, { "GFLOP/s", 1e9 }, { "TFLOP/s", 1e12 }, { "PFLOP/s", 1e15 },
  { NULL, 0 },
};
static const Unit time_units[] = {
  { "s", 1 }, { "ms", 1e-3 }, { "us", 1e-6 }, { "ns", 1e-9 }, { NULL, 0 },
};

gboolean
fw_yaml_get_quantity (const FwYamlDocument *doc, const FwYamlNode *node, const char *unit_kind, double *out,
                      GError **error)
{
  const Unit *units = strcmp (unit_kind, "bytes") == 0 ? byte_units
                      : strcmp (unit_kind, "bytes/s") == 0 ? rate_units
                      : strcmp (unit_kind, "flop/s") == 0 ? flop_units
                                                          : time_units;
  char *end = NULL;
  double v;

  if (!fw_yaml_expect (doc, node, FW_YAML_SCALAR, _("the value"), error))
    return FALSE;
  errno = 0;
  v = g_ascii_strtod (node->scalar, &end);
  if (end == node->scalar || errno == ERANGE || !isfinite (v) || v < 0)
    return fw_yaml_error (error, doc, node, _("“%s” is not a non-negative quantity"), node->scalar);
  while (*end == ' ')
    end++;
  if (*end == '\0')
    {
      *out = v;
      return TRUE;
    }
  for (guint i = 0; units[i].suffix; i++)
    if (strcmp (end, units[i].suffix) == 0)
      {
        *out = v * units[i].factor;
        if (!isfinite (*out) || *out > 1e30)
          return fw_yaml_error (error, doc, node, _("“%s” is too large"), node->scalar);
        return TRUE;
      }
  {
    GString *list = g_string_new (NULL);
    for (guint i = 0; units[i].suffix; i++)
      g_string_append_printf (list, "%s%s", i ? ", " : "", units[i].suffix);
    fw_yaml_error (error, doc, node, _("unknown unit “%s” (use one of: %s)"), end, list->str);
    g_string_free (list, TRUE);
    return FALSE;
  }
}

static gint
compare_paths (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

gboolean
fw_yaml_is_yaml_name (const char *name)
{
  return name[0] != '.' && (g_str_has_suffix (name, ".yaml") || g_str_has_suffix (name, ".yml"));
}

GPtrArray *
fw_yaml_list_files (const char *file_or_dir, GError **error)
{
  g_autoptr(GPtrArray) paths = g_ptr_array_new_with_free_func (g_free);

  if (g_file_test (file_or_dir, G_FILE_TEST_IS_DIR))
    {
      g_autoptr(GError) local = NULL;
      g_autoptr(GDir) dir = g_dir_open (file_or_dir, 0, &local);
      const char *name;

      if (dir == NULL)
        {
          g_set_error (error, FW_ERROR, FW_ERROR_IO, "%s", local->message);
          return NULL;
        }
      while ((name = g_dir_read_name (dir)) != NULL)
        if (fw_yaml_is_yaml_name (name))
          g_ptr_array_add (paths, g_build_filename (file_or_dir, name, NULL));
      g_ptr_array_sort (paths, compare_paths);
    }
  else
    g_ptr_array_add (paths, g_strdup (file_or_dir));
  return g_steal_pointer (&paths);
}

GPtrArray *
fw_yaml_parse_files (const char *file_or_dir, FwYamlEntriesParser parse, GError **error)
{
  g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);
  g_autoptr(GPtrArray) paths = NULL;

  if ((paths = fw_yaml_list_files (file_or_dir, error)) == NULL)
    return NULL;
  for (guint k = 0; k < paths->len; k++)
    {
      g_autoptr(FwYamlDocument) doc = fw_yaml_load_file (g_ptr_array_index (paths, k), error);
      GPtrArray *entries;

      if (doc == NULL || (entries = parse (doc, error)) == NULL)
        return NULL;
      g_ptr_array_add (files, entries);
    }
  return g_steal_pointer (&files);
}
