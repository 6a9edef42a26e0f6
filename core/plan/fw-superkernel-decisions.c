/* fw-superkernel-decisions.c: the SuperKernel scopes a user chooses, as decisions in the plan's log
 * (fw-decisions.h), so they are undone, redone, saved in sessions and written to whitelists like accept and
 * veto; and their YAML form, shared by sessions and whitelists (fw-decision-yaml-private.h). The scopes
 * themselves are built from them by fw_sk_plan_build. */
#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "fw-decision-yaml-private.h"
#include "fw-decisions.h"
#include "fw-error.h"
#include "fw-plan-private.h"

FwSkUserScope *
fw_sk_user_scope_new (const char *name, const char *prefix, const char * const *nodes)
{
  FwSkUserScope *s = g_new0 (FwSkUserScope, 1);

  s->name = g_strdup (name);
  s->prefix = g_strdup (prefix);
  s->nodes = g_strdupv ((char **) nodes);
  s->source = g_strdup ("user");
  return s;
}

FwSkUserScope *
fw_sk_user_scope_copy (const FwSkUserScope *scope)
{
  FwSkUserScope *s = fw_sk_user_scope_new (scope->name, scope->prefix, (const char * const *) scope->nodes);

  g_free (s->source);
  s->source = g_strdup (scope->source);
  s->who = g_strdup (scope->who);
  s->why = g_strdup (scope->why);
  s->line = scope->line;
  return s;
}

void
fw_sk_user_scope_free (FwSkUserScope *scope)
{
  if (scope == NULL)
    return;
  g_free (scope->name);
  g_free (scope->prefix);
  g_strfreev (scope->nodes);
  g_free (scope->source);
  g_free (scope->who);
  g_free (scope->why);
  g_free (scope);
}

gboolean
fw_decision_is_superkernel (const FwDecision *d)
{
  return d->action == FW_DECISION_SUPERKERNEL || d->action == FW_DECISION_SUPERKERNEL_REMOVE;
}

guint
fw_sk_user_scopes_find (GPtrArray *scopes, const char *name)
{
  for (guint i = 0; i < scopes->len; i++)
    if (g_strcmp0 (((FwSkUserScope *) g_ptr_array_index (scopes, i))->name, name) == 0)
      return i;
  return G_MAXUINT;
}

/* The log replayed up to (not including) decision n. */
static GPtrArray *
scopes_before (const FwPlan *plan, guint n)
{
  GPtrArray *scopes = g_ptr_array_new_with_free_func ((GDestroyNotify) fw_sk_user_scope_free);

  for (guint i = 0; i < n && i < plan->decisions->len; i++)
    {
      const FwDecision *d = g_ptr_array_index (plan->decisions, i);
      guint at = fw_sk_user_scopes_find (scopes, d->scope_name);

      if (d->action == FW_DECISION_SUPERKERNEL && at == G_MAXUINT)
        {
          FwSkUserScope *s = fw_sk_user_scope_new (d->scope_name, d->scope, (const char * const *) d->nodes);

          g_free (s->source);
          s->source = g_strdup (d->source);
          s->who = g_strdup (d->who);
          s->why = g_strdup (d->why);
          g_ptr_array_add (scopes, s);
        }
      else if (d->action == FW_DECISION_SUPERKERNEL_REMOVE && at != G_MAXUINT)
        g_ptr_array_remove_index (scopes, at);
    }
  return scopes;
}

GPtrArray *
fw_plan_get_user_scopes (const FwPlan *plan)
{
  g_return_val_if_fail (plan != NULL, NULL);
  return scopes_before (plan, plan->n_applied);
}

gboolean
fw_sk_decision_check (const FwPlan *plan, const FwDecision *d, GError **error)
{
  g_autoptr(GPtrArray) scopes = scopes_before (plan, plan->n_applied);
  gboolean exists = d->scope_name != NULL && fw_sk_user_scopes_find (scopes, d->scope_name) != G_MAXUINT;

  if (d->scope_name == NULL || d->scope_name[0] == '\0')
    {
      g_set_error (error, FW_ERROR, FW_ERROR_USAGE, "%s", _("a SuperKernel scope needs a name"));
      return FALSE;
    }
  if (d->action == FW_DECISION_SUPERKERNEL_REMOVE && !exists)
    {
      g_set_error (error, FW_ERROR, FW_ERROR_USAGE, _("there is no SuperKernel scope “%s” of yours to remove"),
                   d->scope_name);
      return FALSE;
    }
  if (d->action != FW_DECISION_SUPERKERNEL)
    return TRUE;
  if (exists)
    {
      g_set_error (error, FW_ERROR, FW_ERROR_USAGE, _("there is a SuperKernel scope “%s” already"), d->scope_name);
      return FALSE;
    }
  if ((d->scope == NULL || d->scope[0] == '\0') && (d->nodes == NULL || d->nodes[0] == NULL))
    {
      g_set_error (error, FW_ERROR, FW_ERROR_USAGE, _("the SuperKernel scope “%s” needs a name scope or nodes"),
                   d->scope_name);
      return FALSE;
    }
  return TRUE;
}

gboolean
fw_plan_make_superkernel (FwPlan *plan, const FwSkUserScope *scope, GError **error)
{
  FwDecision *d;

  g_return_val_if_fail (plan != NULL && scope != NULL, FALSE);

  d = fw_decision_new (FW_DECISION_SUPERKERNEL, scope->source, scope->who, scope->why);
  d->scope_name = g_strdup (scope->name);
  d->scope = g_strdup (scope->prefix);
  d->nodes = g_strdupv (scope->nodes);
  return fw_plan_decide (plan, d, error);
}

gboolean
fw_plan_remove_superkernel (FwPlan *plan, const char *name, GError **error)
{
  FwDecision *d;

  g_return_val_if_fail (plan != NULL, FALSE);

  d = fw_decision_new (FW_DECISION_SUPERKERNEL_REMOVE, "user", NULL, NULL);
  d->scope_name = g_strdup (name);
  return fw_plan_decide (plan, d, error);
}

/* ---- YAML ---- */

gboolean
fw_decision_yaml_read_scope (const FwYamlDocument *doc, const FwYamlNode *node, gboolean removal,
                             FwSkUserScope **out, GError **error)
{
  static const char * const keys[] = { "name", "scope", "nodes", "who", "why", NULL };
  const FwYamlNode *scope, *nodes;
  FwSkUserScope *s;

  *out = NULL;
  /* The short form: a name-scope prefix, named after itself. */
  if (node->kind == FW_YAML_SCALAR && !removal)
    {
      const char *text;

      if (!fw_yaml_get_string (doc, node, &text, error))
        return FALSE;
      if (text[0] == '\0')
        return fw_yaml_error (error, doc, node, _("an empty name scope: write a prefix such as “/encoder/layers.3”"));
      *out = fw_sk_user_scope_new (text, text, NULL);
      (*out)->line = node->line;
      return TRUE;
    }
  if (!fw_yaml_expect (doc, node, FW_YAML_MAPPING, _("a SuperKernel scope (a name-scope prefix, or a mapping "
                                                     "with “scope” or “nodes”)"), error) ||
      !fw_yaml_check_keys (doc, node, keys, error))
    return FALSE;
  s = fw_sk_user_scope_new (NULL, NULL, NULL);
  s->line = node->line;
  *out = s;
  scope = fw_yaml_get (node, "scope");
  nodes = fw_yaml_get (node, "nodes");
  if (!fw_decision_yaml_get_optional (doc, node, "name", &s->name, error) ||
      !fw_decision_yaml_get_optional (doc, node, "who", &s->who, error) ||
      !fw_decision_yaml_get_optional (doc, node, "why", &s->why, error))
    return FALSE;
  if (removal)
    {
      if (s->name == NULL || s->name[0] == '\0')
        return fw_yaml_error (error, doc, node, _("removing a SuperKernel scope needs its “name”"));
      return TRUE;
    }
  if ((scope == NULL) == (nodes == NULL))
    return fw_yaml_error (error, doc, node, _("a SuperKernel scope needs exactly one of “scope” (a name-scope "
                                              "prefix) and “nodes” (the kernels holding these nodes)"));
  if (scope != NULL)
    {
      if (!fw_decision_yaml_get_optional (doc, node, "scope", &s->prefix, error))
        return FALSE;
      if (s->prefix[0] == '\0')
        return fw_yaml_error (error, doc, scope, _("an empty name scope: write a prefix such as “/encoder/layers.3”"));
      if (s->name == NULL)
        s->name = g_strdup (s->prefix);
    }
  else
    {
      if (!fw_decision_yaml_get_nodes (doc, nodes, G_MAXUINT, &s->nodes, error))
        return FALSE;
      if (s->name == NULL)
        return fw_yaml_error (error, doc, node, _("a SuperKernel scope of “nodes” needs a “name”"));
    }
  if (s->name[0] == '\0')
    return fw_yaml_error (error, doc, node, _("a SuperKernel scope needs a name"));
  return TRUE;
}

void
fw_decision_yaml_append_scope (GString *out, const char *indent, gboolean item, const FwSkUserScope *scope)
{
  g_autofree char *more = g_strconcat (indent, item ? "  " : "", NULL);
  g_autofree char *items = g_strconcat (more, "  ", NULL);

  g_string_append_printf (out, "%s%sname: ", indent, item ? "- " : "");
  fw_decision_yaml_append_quoted (out, scope->name);
  g_string_append_c (out, '\n');
  fw_decision_yaml_append_field (out, more, "scope", scope->prefix);
  if (scope->nodes != NULL)
    {
      g_string_append_printf (out, "%snodes:\n", more);
      fw_decision_yaml_append_list (out, items, (const char * const *) scope->nodes);
    }
  fw_decision_yaml_append_field (out, more, "who", scope->who);
  fw_decision_yaml_append_field (out, more, "why", scope->why);
}
