/* fw-whitelist.c: `*.fusion.yaml` whitelists (docs/whitelist-format.md): reading with the place of every
 * error, applying to a plan, and writing a plan's decisions back deterministically. */
#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "fw-decision-yaml-private.h"
#include "fw-decisions.h"
#include "fw-error.h"
#include "io/fw-file-write.h"
#include "fw-plan-private.h"
#include "yaml/fw-yaml.h"

static void
entry_free (gpointer data)
{
  FwWhitelistEntry *e = data;

  g_free (e->pattern);
  g_strfreev (e->nodes);
  g_free (e->body);
  g_free (e->fingerprint);
  g_free (e->who);
  g_free (e->why);
  g_free (e);
}

FwWhitelist *
fw_whitelist_new (void)
{
  FwWhitelist *w = g_new0 (FwWhitelist, 1);

  w->entries = g_ptr_array_new_with_free_func (entry_free);
  w->superkernel_scopes = g_ptr_array_new_with_free_func ((GDestroyNotify) fw_sk_user_scope_free);
  return w;
}

void
fw_whitelist_free (FwWhitelist *whitelist)
{
  if (whitelist == NULL)
    return;
  g_free (whitelist->filename);
  g_free (whitelist->model_file);
  g_free (whitelist->model_fingerprint);
  g_ptr_array_unref (whitelist->entries);
  g_ptr_array_unref (whitelist->superkernel_scopes);
  g_free (whitelist);
}

/* ---- reading ---- */

static gboolean
read_entry (const FwYamlDocument *doc, const FwYamlNode *node, FwWhitelist *w, GError **error)
{
  static const char * const keys[] = { "pattern", "nodes", "body", "fingerprint", "decision", "who", "why", NULL };
  const FwYamlNode *pattern, *nodes, *decision, *fingerprint, *body;
  FwWhitelistEntry *e;
  const char *text;

  if (!fw_yaml_expect (doc, node, FW_YAML_MAPPING, _("an entry"), error) ||
      !fw_yaml_check_keys (doc, node, keys, error))
    return FALSE;
  pattern = fw_yaml_get (node, "pattern");
  nodes = fw_yaml_get (node, "nodes");
  decision = fw_yaml_get (node, "decision");
  fingerprint = fw_yaml_get (node, "fingerprint");
  body = fw_yaml_get (node, "body");
  if ((pattern == NULL) == (nodes == NULL))
    return fw_yaml_error (error, doc, node, _("an entry needs exactly one of “pattern” (any model) and "
                                              "“nodes” (one model)"));
  if (decision == NULL)
    return fw_yaml_error (error, doc, node, _("an entry needs “decision: accept” or “decision: veto”"));

  e = g_new0 (FwWhitelistEntry, 1);
  e->line = node->line;
  g_ptr_array_add (w->entries, e);
  if (!fw_yaml_get_string (doc, decision, &text, error))
    return FALSE;
  if (!fw_decision_yaml_action_from_name (text, &e->action))
    return fw_yaml_error (error, doc, decision, _("decision “%s”: expected accept or veto"), text);
  if (pattern != NULL)
    {
      if (!fw_yaml_get_string (doc, pattern, &text, error))
        return FALSE;
      if (text[0] == '\0')
        return fw_yaml_error (error, doc, pattern, _("an empty pattern"));
      if (fingerprint != NULL)
        return fw_yaml_error (error, doc, fingerprint,
                              _("a pattern-level entry applies to any model; a fingerprint belongs to “nodes” entries"));
      if (body != NULL)
        return fw_yaml_error (error, doc, body, _("a pattern-level entry applies in every body; “body” belongs to “nodes” entries"));
      e->pattern = g_strdup (text);
    }
  else
    {
      if (!fw_decision_yaml_get_nodes (doc, nodes, G_MAXUINT, &e->nodes, error) ||
          !fw_decision_yaml_get_optional (doc, node, "body", &e->body, error))
        return FALSE;
      if (fingerprint != NULL)
        {
          if (!fw_decision_yaml_get_fingerprint (doc, fingerprint, &e->fingerprint, error))
            return FALSE;
        }
      else if (w->model_fingerprint != NULL)
        e->fingerprint = g_strdup (w->model_fingerprint);
      else
        return fw_yaml_error (error, doc, node, _("a “nodes” entry needs a fingerprint, its own or under “model:”"));
    }
  return fw_decision_yaml_get_optional (doc, node, "who", &e->who, error) &&
         fw_decision_yaml_get_optional (doc, node, "why", &e->why, error);
}

/* `superkernel_scopes:`, each a fw_decision_yaml_read_scope, no two of one name. */
static gboolean
read_scopes (const FwYamlDocument *doc, const FwYamlNode *scopes, FwWhitelist *w, GError **error)
{
  if (!fw_yaml_expect (doc, scopes, FW_YAML_SEQUENCE, _("“superkernel_scopes”"), error))
    return FALSE;
  for (guint i = 0; i < scopes->items->len; i++)
    {
      const FwYamlNode *item = g_ptr_array_index (scopes->items, i);
      FwSkUserScope *s = NULL;
      gboolean ok = fw_decision_yaml_read_scope (doc, item, FALSE, &s, error);

      if (s != NULL)
        g_ptr_array_add (w->superkernel_scopes, s);
      if (!ok)
        return FALSE;
      for (guint j = 0; j + 1 < w->superkernel_scopes->len; j++)
        if (strcmp (((FwSkUserScope *) g_ptr_array_index (w->superkernel_scopes, j))->name, s->name) == 0)
          return fw_yaml_error (error, doc, item, _("a second SuperKernel scope named “%s” (the first is on line %u)"),
                                s->name, ((FwSkUserScope *) g_ptr_array_index (w->superkernel_scopes, j))->line);
    }
  return TRUE;
}

static gboolean
read_document (const FwYamlDocument *doc, FwWhitelist *w, GError **error)
{
  static const char * const keys[] = { "version", "model", "entries", "superkernel_scopes", NULL };
  const FwYamlNode *root = doc->root, *model, *entries, *scopes;

  if (!fw_decision_yaml_check_root (doc, _("the whitelist"), _("the whitelist is empty"), keys, error))
    return FALSE;
  model = fw_yaml_get (root, "model");
  if (model != NULL &&
      !fw_decision_yaml_read_model (doc, model, "file", NULL, &w->model_file, &w->model_fingerprint, error))
    return FALSE;
  entries = fw_yaml_get (root, "entries");
  if (entries == NULL)
    return fw_yaml_error (error, doc, root, _("“entries” is missing"));
  if (!fw_yaml_expect (doc, entries, FW_YAML_SEQUENCE, _("“entries”"), error))
    return FALSE;
  for (guint i = 0; i < entries->items->len; i++)
    if (!read_entry (doc, g_ptr_array_index (entries->items, i), w, error))
      return FALSE;
  scopes = fw_yaml_get (root, "superkernel_scopes");
  return scopes == NULL || read_scopes (doc, scopes, w, error);
}

static FwWhitelist *
from_document (FwYamlDocument *doc, GError **error)
{
  g_autoptr(FwWhitelist) w = fw_whitelist_new ();

  if (doc == NULL)
    return NULL;
  w->filename = g_strdup (doc->filename);
  if (!read_document (doc, w, error))
    {
      fw_yaml_document_free (doc);
      return NULL;
    }
  fw_yaml_document_free (doc);
  return g_steal_pointer (&w);
}

FwWhitelist *
fw_whitelist_load (const char *path, GError **error)
{
  return from_document (fw_yaml_load_file (path, error), error);
}

FwWhitelist *
fw_whitelist_load_data (const char *display_name, const char *data, gsize len, GError **error)
{
  return from_document (fw_yaml_load_data (display_name, data, len, error), error);
}

/* ---- writing ---- */

char *
fw_whitelist_to_string (const FwWhitelist *w)
{
  GString *out = g_string_new ("# Fusion Workbench whitelist (docs/whitelist-format.md)\nversion: 1\n");

  if (w->model_file || w->model_fingerprint)
    {
      g_string_append (out, "model:\n");
      fw_decision_yaml_append_field (out, "  ", "file", w->model_file);
      fw_decision_yaml_append_field (out, "  ", "fingerprint", w->model_fingerprint);
    }
  g_string_append (out, w->entries->len ? "entries:\n" : "entries: []\n");
  for (guint i = 0; i < w->entries->len; i++)
    {
      const FwWhitelistEntry *e = g_ptr_array_index (w->entries, i);

      if (e->pattern)
        {
          g_string_append (out, "  - pattern: ");
          fw_decision_yaml_append_quoted (out, e->pattern);
          g_string_append_c (out, '\n');
        }
      else
        {
          g_string_append (out, "  - nodes:\n");
          fw_decision_yaml_append_list (out, "      ", (const char * const *) e->nodes);
          fw_decision_yaml_append_field (out, "    ", "body", e->body);
          if (e->fingerprint && g_strcmp0 (e->fingerprint, w->model_fingerprint) != 0)
            fw_decision_yaml_append_field (out, "    ", "fingerprint", e->fingerprint);
        }
      g_string_append_printf (out, "    decision: %s\n", fw_decision_action_name (e->action));
      fw_decision_yaml_append_field (out, "    ", "who", e->who);
      fw_decision_yaml_append_field (out, "    ", "why", e->why);
    }
  /* Only when there are some: whitelists without scopes stay as they were. */
  if (w->superkernel_scopes->len > 0)
    g_string_append (out, "superkernel_scopes:\n");
  for (guint i = 0; i < w->superkernel_scopes->len; i++)
    fw_decision_yaml_append_scope (out, "  ", TRUE, g_ptr_array_index (w->superkernel_scopes, i));
  return g_string_free (out, FALSE);
}

gboolean
fw_whitelist_save (const FwWhitelist *whitelist, const char *path, GError **error)
{
  g_autofree char *text = fw_whitelist_to_string (whitelist);

  return fw_file_write (path, text, -1, error);
}

/* ---- plans ---- */

void
fw_plan_apply_whitelist (FwPlan *plan, const FwWhitelist *whitelist)
{
  for (guint i = 0; i < whitelist->entries->len; i++)
    {
      const FwWhitelistEntry *e = g_ptr_array_index (whitelist->entries, i);
      g_autofree char *source = e->line ? g_strdup_printf ("%s:%u", whitelist->filename ? whitelist->filename : "?",
                                                           e->line)
                                        : g_strdup (whitelist->filename ? whitelist->filename : "whitelist");
      FwDecision *d = fw_decision_new (e->action, source, e->who, e->why);

      d->whitelist = TRUE;
      d->pattern = g_strdup (e->pattern);
      d->nodes = g_strdupv (e->nodes);
      d->body = g_strdup (e->body);
      d->fingerprint = g_strdup (e->fingerprint);
      /* Entries never name candidates by index, so this cannot fail. */
      fw_plan_decide (plan, d, NULL);
    }
  for (guint i = 0; i < whitelist->superkernel_scopes->len; i++)
    {
      g_autoptr(FwSkUserScope) s = fw_sk_user_scope_copy (g_ptr_array_index (whitelist->superkernel_scopes, i));

      g_free (s->source);
      s->source = s->line ? g_strdup_printf ("%s:%u", whitelist->filename ? whitelist->filename : "?", s->line)
                          : g_strdup (whitelist->filename ? whitelist->filename : "whitelist");
      /* A scope of that name made already (a session, an earlier whitelist) stands. */
      fw_plan_make_superkernel (plan, s, NULL);
    }
}

FwWhitelist *
fw_whitelist_from_plan (FwPlan *plan, const char *model_file)
{
  FwWhitelist *w = fw_whitelist_new ();
  const char *fingerprint = fw_plan_get_fingerprint (plan);

  w->model_file = g_strdup (model_file);
  w->model_fingerprint = g_strdup (fingerprint);
  for (guint i = 0; i < plan->n_applied; i++)
    {
      const FwDecision *d = g_ptr_array_index (plan->decisions, i);
      FwWhitelistEntry *e;

      if (d->pattern == NULL)
        continue;
      e = g_new0 (FwWhitelistEntry, 1);
      e->action = d->action;
      e->pattern = g_strdup (d->pattern);
      e->who = g_strdup (d->who);
      e->why = g_strdup (d->why);
      g_ptr_array_add (w->entries, e);
    }
  for (guint i = 0; i < plan->candidates->len; i++)
    {
      const FwCandidate *c = g_ptr_array_index (plan->candidates, i);
      const FwDecision *d = c->decision ? g_ptr_array_index (plan->decisions, c->decision - 1) : NULL;
      FwWhitelistEntry *e;

      if (c->status == FW_CANDIDATE_REFUSED || (d != NULL && d->pattern != NULL))
        continue;
      e = g_new0 (FwWhitelistEntry, 1);
      e->action = c->status == FW_CANDIDATE_VETOED ? FW_DECISION_VETO : FW_DECISION_ACCEPT;
      e->nodes = g_new0 (char *, c->nodes->len + 1);
      for (guint k = 0; k < c->nodes->len; k++)
        e->nodes[k] = g_strdup (((FwNode *) g_ptr_array_index (c->nodes, k))->name);
      e->body = g_strdup (c->body);
      e->fingerprint = g_strdup (fingerprint);
      if (d != NULL)
        {
          e->who = g_strdup (d->who);
          e->why = g_strdup (d->why);
        }
      g_ptr_array_add (w->entries, e);
    }
  g_ptr_array_extend_and_steal (w->superkernel_scopes, fw_plan_get_user_scopes (plan));
  return w;
}
