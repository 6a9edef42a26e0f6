/* fw-session.c: reading, writing and replaying `*.fwsession` files (docs/session-format.md). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "fw-session.h"
#include "fw-error.h"
#include "graph/fw-graph.h"
#include "io/fw-file-write.h"
#include "plan/fw-decision-yaml-private.h"
#include "yaml/fw-yaml.h"

static void
decision_free (gpointer data)
{
  FwSessionDecision *d = data;

  g_free (d->pattern);
  g_strfreev (d->nodes);
  g_free (d->body);
  g_free (d->who);
  g_free (d->why);
  fw_sk_user_scope_free (d->superkernel);
  g_free (d);
}

FwSession *
fw_session_new (void)
{
  FwSession *s = g_new0 (FwSession, 1);

  s->strategy = FW_STRATEGY_BALANCED;
  s->decisions = g_ptr_array_new_with_free_func (decision_free);
  return s;
}

void
fw_session_free (FwSession *session)
{
  if (session == NULL)
    return;
  g_free (session->filename);
  g_free (session->model_path);
  g_free (session->model_fingerprint);
  g_free (session->profile);
  g_strfreev (session->bindings);
  g_ptr_array_unref (session->decisions);
  g_free (session);
}

/* ---- reading ---- */

static gboolean
read_decision (const FwYamlDocument *doc, const FwYamlNode *node, FwSession *s, GError **error)
{
  static const char * const keys[] = { "action", "candidate", "pattern", "nodes", "body", "who", "why",
                                       "superkernel", NULL };
  const FwYamlNode *action, *candidate, *nodes, *superkernel;
  FwSessionDecision *d;
  const char *text;

  if (!fw_yaml_expect (doc, node, FW_YAML_MAPPING, _("a decision"), error) ||
      !fw_yaml_check_keys (doc, node, keys, error))
    return FALSE;
  d = g_new0 (FwSessionDecision, 1);
  d->candidate = G_MAXUINT;
  d->line = node->line;
  g_ptr_array_add (s->decisions, d);

  action = fw_yaml_get (node, "action");
  if (action == NULL)
    return fw_yaml_error (error, doc, node, _("a decision needs “action: accept” or “action: veto”"));
  if (!fw_yaml_get_string (doc, action, &text, error))
    return FALSE;
  superkernel = fw_yaml_get (node, "superkernel");
  if (strcmp (text, "superkernel") == 0 || strcmp (text, "superkernel_remove") == 0)
    {
      d->action = text[strlen ("superkernel")] ? FW_DECISION_SUPERKERNEL_REMOVE : FW_DECISION_SUPERKERNEL;
      if (superkernel == NULL)
        return fw_yaml_error (error, doc, node, _("a SuperKernel decision needs “superkernel:” with the scope’s "
                                                  "“name”"));
      return fw_decision_yaml_read_scope (doc, superkernel, d->action == FW_DECISION_SUPERKERNEL_REMOVE,
                                          &d->superkernel, error);
    }
  if (!fw_decision_yaml_action_from_name (text, &d->action))
    return fw_yaml_error (error, doc, action, _("action “%s”: expected accept, veto, superkernel or "
                                                "superkernel_remove"), text);
  if (superkernel != NULL)
    return fw_yaml_error (error, doc, superkernel, _("“superkernel” belongs to SuperKernel decisions only"));

  candidate = fw_yaml_get (node, "candidate");
  if (candidate != NULL)
    {
      gint64 v;

      if (!fw_yaml_get_int (doc, candidate, 0, G_MAXUINT - 1, &v, error))
        return FALSE;
      d->candidate = (guint) v;
    }
  if (!fw_decision_yaml_get_optional (doc, node, "pattern", &d->pattern, error) ||
      !fw_decision_yaml_get_optional (doc, node, "who", &d->who, error) ||
      !fw_decision_yaml_get_optional (doc, node, "why", &d->why, error) ||
      !fw_decision_yaml_get_optional (doc, node, "body", &d->body, error))
    return FALSE;
  nodes = fw_yaml_get (node, "nodes");
  if (nodes != NULL)
    return fw_decision_yaml_get_nodes (doc, nodes, FW_SESSION_MAX_NODES, &d->nodes, error);
  if (d->pattern == NULL || d->pattern[0] == '\0')
    return fw_yaml_error (error, doc, node, _("a decision needs “nodes” (one fusion) or “pattern” (every "
                                              "fusion of that pattern)"));
  return TRUE;
}

static int
compare_bindings (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

static gboolean
read_bindings (const FwYamlDocument *doc, const FwYamlNode *node, FwSession *s, GError **error)
{
  g_autoptr(GPtrArray) list = NULL;
  guint n;

  if (!fw_yaml_expect (doc, node, FW_YAML_MAPPING, _("“bindings”"), error))
    return FALSE;
  n = node->items->len / 2;
  if (n > FW_SESSION_MAX_BINDINGS)
    return fw_yaml_error (error, doc, node, _("%u bindings; at most %u are allowed"), n,
                          (guint) FW_SESSION_MAX_BINDINGS);
  list = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < n; i++)
    {
      const FwYamlNode *key = g_ptr_array_index (node->items, 2 * i);
      const FwYamlNode *value = g_ptr_array_index (node->items, 2 * i + 1);
      const char *name;
      gint64 v;

      if (!fw_yaml_get_string (doc, key, &name, error))
        return FALSE;
      if (name[0] == '\0' || strchr (name, '=') != NULL)
        return fw_yaml_error (error, doc, key, _("“%s” is not a dimension name"), name);
      if (!fw_yaml_get_int (doc, value, 1, G_MAXINT64, &v, error))
        return FALSE;
      g_ptr_array_add (list, g_strdup_printf ("%s=%" G_GINT64_FORMAT, name, v));
    }
  if (list->len == 0)
    return TRUE;
  g_ptr_array_sort (list, compare_bindings);
  g_ptr_array_add (list, NULL);
  s->bindings = (GStrv) g_ptr_array_free (g_steal_pointer (&list), FALSE);
  return TRUE;
}

static gboolean
read_document (const FwYamlDocument *doc, FwSession *s, GError **error)
{
  static const char * const keys[] = { "version", "model", "profile", "strategy", "bindings", "decisions", NULL };
  const FwYamlNode *root = doc->root, *model, *strategy, *bindings, *decisions;

  if (!fw_decision_yaml_check_root (doc, _("the session"), _("the session is empty"), keys, error))
    return FALSE;

  model = fw_yaml_get (root, "model");
  if (model == NULL)
    return fw_yaml_error (error, doc, root, _("“model” (its path and fingerprint) is missing"));
  if (!fw_decision_yaml_read_model (doc, model, "path", _("“model” needs the model’s “fingerprint”"),
                                    &s->model_path, &s->model_fingerprint, error))
    return FALSE;

  if (!fw_decision_yaml_get_optional (doc, root, "profile", &s->profile, error))
    return FALSE;
  strategy = fw_yaml_get (root, "strategy");
  if (strategy != NULL)
    {
      const char *text;

      if (!fw_yaml_get_string (doc, strategy, &text, error))
        return FALSE;
      if (!fw_strategy_from_string (text, &s->strategy))
        return fw_yaml_error (error, doc, strategy,
                              _("strategy “%s”: expected conservative, balanced or aggressive"), text);
    }
  bindings = fw_yaml_get (root, "bindings");
  if (bindings != NULL && !read_bindings (doc, bindings, s, error))
    return FALSE;

  decisions = fw_yaml_get (root, "decisions");
  if (decisions == NULL)
    return fw_yaml_error (error, doc, root, _("“decisions” is missing (write “decisions: []” for none)"));
  if (!fw_yaml_expect (doc, decisions, FW_YAML_SEQUENCE, _("“decisions”"), error))
    return FALSE;
  if (decisions->items->len > FW_SESSION_MAX_DECISIONS)
    return fw_yaml_error (error, doc, decisions, _("%u decisions; at most %u are allowed"),
                          decisions->items->len, (guint) FW_SESSION_MAX_DECISIONS);
  for (guint i = 0; i < decisions->items->len; i++)
    if (!read_decision (doc, g_ptr_array_index (decisions->items, i), s, error))
      return FALSE;
  return TRUE;
}

static FwSession *
from_document (FwYamlDocument *doc, GError **error)
{
  g_autoptr(FwYamlDocument) owned = doc;
  g_autoptr(FwSession) s = fw_session_new ();

  if (doc == NULL)
    return NULL;
  s->filename = g_strdup (doc->filename);
  if (!read_document (doc, s, error))
    {
      /* Well-formed YAML that is not a session: the content breaks the format, it is not unreadable. */
      if (error != NULL && *error != NULL && g_error_matches (*error, FW_ERROR, FW_ERROR_PARSE))
        (*error)->code = FW_ERROR_INVALID;
      return NULL;
    }
  return g_steal_pointer (&s);
}

FwSession *
fw_session_load (const char *path, GError **error)
{
  g_return_val_if_fail (path != NULL, NULL);

  return from_document (fw_yaml_load_file (path, error), error);
}

FwSession *
fw_session_load_data (const char *display_name, const char *data, gsize len, GError **error)
{
  return from_document (fw_yaml_load_data (display_name, data, len, error), error);
}

/* ---- writing ---- */

char *
fw_session_to_string (const FwSession *s)
{
  GString *out = g_string_new ("# Fusion Workbench session (docs/session-format.md)\nversion: 1\nmodel:\n");

  fw_decision_yaml_append_field (out, "  ", "path", s->model_path);
  fw_decision_yaml_append_field (out, "  ", "fingerprint", s->model_fingerprint ? s->model_fingerprint : "");
  fw_decision_yaml_append_field (out, "", "profile", s->profile);
  g_string_append_printf (out, "strategy: %s\n", fw_strategy_to_string (s->strategy));
  if (s->bindings != NULL && s->bindings[0] != NULL)
    {
      g_string_append (out, "bindings:\n");
      for (guint i = 0; s->bindings[i]; i++)
        {
          const char *eq = strchr (s->bindings[i], '=');
          g_autofree char *name = eq ? g_strndup (s->bindings[i], eq - s->bindings[i]) : NULL;
          gint64 v;

          /* Only what reads back: a name and a positive whole number. */
          if (eq == NULL || name[0] == '\0' ||
              !g_ascii_string_to_signed (eq + 1, 10, 1, G_MAXINT64, &v, NULL))
            continue;
          g_string_append (out, "  ");
          fw_decision_yaml_append_quoted (out, name);
          g_string_append_printf (out, ": %s\n", eq + 1);
        }
    }
  g_string_append (out, s->decisions->len ? "decisions:\n" : "decisions: []\n");
  for (guint i = 0; i < s->decisions->len; i++)
    {
      const FwSessionDecision *d = g_ptr_array_index (s->decisions, i);

      g_string_append_printf (out, "  - action: %s\n", fw_decision_action_name (d->action));
      if (d->superkernel != NULL)
        {
          g_string_append (out, "    superkernel:\n");
          fw_decision_yaml_append_scope (out, "      ", FALSE, d->superkernel);
          continue;
        }
      if (d->candidate != G_MAXUINT)
        g_string_append_printf (out, "    candidate: %u\n", d->candidate);
      fw_decision_yaml_append_field (out, "    ", "pattern", d->pattern);
      if (d->nodes != NULL)
        {
          g_string_append (out, "    nodes:\n");
          fw_decision_yaml_append_list (out, "      ", (const char * const *) d->nodes);
        }
      fw_decision_yaml_append_field (out, "    ", "body", d->body);
      fw_decision_yaml_append_field (out, "    ", "who", d->who);
      fw_decision_yaml_append_field (out, "    ", "why", d->why);
    }
  return g_string_free (out, FALSE);
}

gboolean
fw_session_save (const FwSession *session, const char *path, GError **error)
{
  g_autofree char *text = fw_session_to_string (session);

  return fw_file_write (path, text, -1, error);
}

/* ---- plans ---- */

FwSession *
fw_session_from_plan (FwPlan *plan, const char *model_path, const char * const *bindings)
{
  FwSession *s = fw_session_new ();

  s->model_path = g_strdup (model_path);
  s->model_fingerprint = g_strdup (fw_plan_get_fingerprint (plan));
  s->profile = g_strdup (plan->profile ? plan->profile->name : NULL);
  s->strategy = plan->options.strategy;
  if (bindings != NULL && bindings[0] != NULL)
    {
      s->bindings = g_strdupv ((char **) bindings);
      qsort (s->bindings, g_strv_length (s->bindings), sizeof (char *), compare_bindings);
    }
  for (guint i = 0; i < plan->n_applied; i++)
    {
      const FwDecision *pd = g_ptr_array_index (plan->decisions, i);
      FwSessionDecision *d;
      guint candidate = pd->candidate;

      /* It did nothing on this model, so replaying it could not either. */
      if (pd->outcome == FW_DECISION_OTHER_MODEL)
        continue;
      if (pd->action == FW_DECISION_SUPERKERNEL || pd->action == FW_DECISION_SUPERKERNEL_REMOVE)
        {
          d = g_new0 (FwSessionDecision, 1);
          d->action = pd->action;
          d->candidate = G_MAXUINT;
          d->superkernel = fw_sk_user_scope_new (pd->scope_name, pd->scope, (const char * const *) pd->nodes);
          d->superkernel->who = g_strdup (pd->who);
          d->superkernel->why = g_strdup (pd->why);
          g_ptr_array_add (s->decisions, d);
          continue;
        }
      if (pd->pattern == NULL && pd->nodes == NULL)
        continue;
      if (candidate == G_MAXUINT && pd->pattern == NULL && pd->matched->len == 1)
        candidate = g_array_index (pd->matched, guint, 0);
      d = g_new0 (FwSessionDecision, 1);
      d->action = pd->action;
      d->candidate = candidate;
      if (pd->pattern != NULL)
        {
          d->pattern = g_strdup (pd->pattern);
          d->candidate = G_MAXUINT;
        }
      else
        {
          d->nodes = g_strdupv (pd->nodes);
          d->body = g_strdup (pd->body);
          if (candidate < plan->candidates->len)
            d->pattern = g_strdup (((FwCandidate *) g_ptr_array_index (plan->candidates, candidate))->pattern);
        }
      d->who = g_strdup (pd->who);
      d->why = g_strdup (pd->why);
      g_ptr_array_add (s->decisions, d);
    }
  return s;
}

gboolean
fw_session_check_model (const FwSession *session, FwPlan *plan, GError **error)
{
  const char *fingerprint = fw_plan_get_fingerprint (plan);

  if (g_strcmp0 (session->model_fingerprint, fingerprint) == 0)
    return TRUE;
  g_set_error (error, FW_ERROR, FW_ERROR_USAGE,
               _("%s: the session is for another model (%s, fingerprint %.12s…), not this one (fingerprint "
                 "%.12s…)"),
               session->filename ? session->filename : _("session"),
               session->model_path ? session->model_path : _("unnamed"),
               session->model_fingerprint ? session->model_fingerprint : "?", fingerprint);
  return FALSE;
}

guint
fw_session_apply (const FwSession *session, FwPlan *plan)
{
  guint applied = 0;

  for (guint i = 0; i < session->decisions->len; i++)
    {
      const FwSessionDecision *sd = g_ptr_array_index (session->decisions, i);
      g_autofree char *source = sd->line ? g_strdup_printf ("%s:%u", session->filename ? session->filename
                                                                                        : "session", sd->line)
                                         : g_strdup (session->filename ? session->filename : "session");
      FwDecision *d;

      if (sd->superkernel != NULL)
        {
          g_autoptr(FwSkUserScope) scope = fw_sk_user_scope_copy (sd->superkernel);

          g_free (scope->source);
          scope->source = g_strdup (source);
          /* One that cannot stand (its name taken, nothing to remove) is left out, as it was when made. */
          if (sd->action == FW_DECISION_SUPERKERNEL ? fw_plan_make_superkernel (plan, scope, NULL)
                                                    : fw_plan_remove_superkernel (plan, scope->name, NULL))
            applied++;
          continue;
        }
      d = fw_decision_new (sd->action, source, sd->who, sd->why);
      if (sd->nodes != NULL)
        {
          d->nodes = g_strdupv (sd->nodes);
          d->body = g_strdup (sd->body);
        }
      else
        d->pattern = g_strdup (sd->pattern);
      /* Neither a candidate number nor a fingerprint: the decision cannot fail. */
      fw_plan_decide (plan, d, NULL);
      if (d->outcome == FW_DECISION_APPLIED)
        applied++;
    }
  return applied;
}
