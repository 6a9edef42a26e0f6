#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "fw-decision-yaml-private.h"

/* ---- reading ---- */

gboolean
fw_decision_yaml_check_root (const FwYamlDocument *doc, const char *what, const char *empty,
                             const char * const *keys, GError **error)
{
  const FwYamlNode *root = doc->root, *version;
  gint64 v;

  if (root == NULL)
    return fw_yaml_error (error, doc, NULL, "%s", empty);
  if (!fw_yaml_expect (doc, root, FW_YAML_MAPPING, what, error) ||
      !fw_yaml_check_keys (doc, root, keys, error))
    return FALSE;
  version = fw_yaml_get (root, "version");
  if (version == NULL)
    return fw_yaml_error (error, doc, root, _("“version: 1” is missing"));
  return fw_yaml_get_int (doc, version, 1, 1, &v, error);
}

gboolean
fw_decision_yaml_get_fingerprint (const FwYamlDocument *doc, const FwYamlNode *node, char **out, GError **error)
{
  const char *text;

  if (!fw_yaml_get_string (doc, node, &text, error))
    return FALSE;
  if (strlen (text) != 64 || strspn (text, "0123456789abcdefABCDEF") != 64)
    return fw_yaml_error (error, doc, node, _("a fingerprint is 64 hexadecimal digits (SHA-256), not “%s”"), text);
  g_free (*out);
  *out = g_ascii_strdown (text, -1);
  return TRUE;
}

gboolean
fw_decision_yaml_get_optional (const FwYamlDocument *doc, const FwYamlNode *mapping, const char *key, char **out,
                               GError **error)
{
  const FwYamlNode *node = fw_yaml_get (mapping, key);
  const char *text;

  if (node == NULL)
    return TRUE;
  if (!fw_yaml_get_string (doc, node, &text, error))
    return FALSE;
  g_free (*out);
  *out = g_strdup (text);
  return TRUE;
}

gboolean
fw_decision_yaml_read_model (const FwYamlDocument *doc, const FwYamlNode *model, const char *path_key,
                             const char *missing_fingerprint, char **path, char **fingerprint, GError **error)
{
  const char * const keys[] = { path_key, "fingerprint", NULL };
  const FwYamlNode *fp;

  if (!fw_yaml_expect (doc, model, FW_YAML_MAPPING, _("“model”"), error) ||
      !fw_yaml_check_keys (doc, model, keys, error) ||
      !fw_decision_yaml_get_optional (doc, model, path_key, path, error))
    return FALSE;
  fp = fw_yaml_get (model, "fingerprint");
  if (fp == NULL)
    return missing_fingerprint == NULL || fw_yaml_error (error, doc, model, "%s", missing_fingerprint);
  return fw_decision_yaml_get_fingerprint (doc, fp, fingerprint, error);
}

gboolean
fw_decision_yaml_action_from_name (const char *name, FwDecisionAction *action)
{
  if (strcmp (name, "accept") == 0)
    *action = FW_DECISION_ACCEPT;
  else if (strcmp (name, "veto") == 0)
    *action = FW_DECISION_VETO;
  else
    return FALSE;
  return TRUE;
}

gboolean
fw_decision_yaml_get_nodes (const FwYamlDocument *doc, const FwYamlNode *nodes, guint max_nodes, GStrv *out,
                            GError **error)
{
  g_auto(GStrv) names = NULL;

  if (!fw_yaml_expect (doc, nodes, FW_YAML_SEQUENCE, _("“nodes”"), error))
    return FALSE;
  if (nodes->items->len == 0)
    return fw_yaml_error (error, doc, nodes, _("“nodes” is empty; list the node names of the fusion"));
  if (nodes->items->len > max_nodes)
    return fw_yaml_error (error, doc, nodes, _("a decision names %u nodes; at most %u are allowed"),
                          nodes->items->len, max_nodes);
  names = g_new0 (char *, nodes->items->len + 1);
  for (guint i = 0; i < nodes->items->len; i++)
    {
      const char *text;

      if (!fw_yaml_get_string (doc, g_ptr_array_index (nodes->items, i), &text, error))
        return FALSE;
      names[i] = g_strdup (text);
    }
  g_strfreev (*out);
  *out = g_steal_pointer (&names);
  return TRUE;
}

/* ---- writing ---- */

/* Quotes, backslashes, control characters and the separators YAML would fold (next line, line and paragraph
 * separators) escaped; other UTF-8 as is. */
void
fw_decision_yaml_append_quoted (GString *out, const char *text)
{
  g_string_append_c (out, '"');
  for (const char *p = text; *p; )
    {
      gunichar c = g_utf8_get_char_validated (p, -1);
      const char *next;

      if (c == (gunichar) -1 || c == (gunichar) -2)
        {
          /* Not UTF-8 (YAML cannot hold it): the Latin-1 reading of the byte, so the file stays valid. */
          g_string_append_printf (out, "\\x%02x", (guchar) *p);
          p++;
          continue;
        }
      next = g_utf8_next_char (p);
      switch (c)
        {
        case '"': g_string_append (out, "\\\""); break;
        case '\\': g_string_append (out, "\\\\"); break;
        case '\n': g_string_append (out, "\\n"); break;
        case '\t': g_string_append (out, "\\t"); break;
        case '\r': g_string_append (out, "\\r"); break;
        case 0x85: g_string_append (out, "\\N"); break;
        case 0x2028: g_string_append (out, "\\L"); break;
        case 0x2029: g_string_append (out, "\\P"); break;
        case 0xfeff: g_string_append (out, "\\ufeff"); break;
        default:
          if (c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0))
            g_string_append_printf (out, "\\x%02x", (guint) c);
          else
            g_string_append_len (out, p, next - p);
          break;
        }
      p = next;
    }
  g_string_append_c (out, '"');
}

void
fw_decision_yaml_append_field (GString *out, const char *indent, const char *key, const char *value)
{
  if (value == NULL)
    return;
  g_string_append_printf (out, "%s%s: ", indent, key);
  fw_decision_yaml_append_quoted (out, value);
  g_string_append_c (out, '\n');
}

void
fw_decision_yaml_append_list (GString *out, const char *indent, const char * const *names)
{
  for (guint k = 0; names != NULL && names[k] != NULL; k++)
    {
      g_string_append_printf (out, "%s- ", indent);
      fw_decision_yaml_append_quoted (out, names[k]);
      g_string_append_c (out, '\n');
    }
}
