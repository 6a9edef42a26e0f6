/* fw-planner.c: runs discovery, lets rules name and forbid what it found, refuses groups that would not pay
 * for themselves, and adds up the model before and after. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "fw-error.h"
#include "fw-decisions.h"
#include "fw-plan-private.h"

#define DEFAULT_MAX_DEPTH 32

void
fw_plan_options_init (FwPlanOptions *options)
{
  memset (options, 0, sizeof *options);
  options->strategy = FW_STRATEGY_BALANCED;
  options->enabled = TRUE;
}

gboolean
fw_candidate_is_fused (const FwCandidate *candidate)
{
  return candidate->status == FW_CANDIDATE_PROPOSED || candidate->status == FW_CANDIDATE_ACCEPTED;
}

void
fw_plan_options_clear (FwPlanOptions *options)
{
  g_clear_pointer (&options->skips, fw_node_skips_unref);
}

gboolean
fw_strategy_from_string (const char *text, FwStrategy *out)
{
  static const char *names[] = { "conservative", "balanced", "aggressive" };

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    if (g_ascii_strcasecmp (text, names[i]) == 0)
      {
        *out = (FwStrategy) i;
        return TRUE;
      }
  return FALSE;
}

const char *
fw_strategy_to_string (FwStrategy strategy)
{
  switch (strategy)
    {
    case FW_STRATEGY_CONSERVATIVE: return "conservative";
    case FW_STRATEGY_AGGRESSIVE: return "aggressive";
    case FW_STRATEGY_BALANCED:
    default: return "balanced";
    }
}

gboolean
fw_plan_options_from_env (FwPlanOptions *options, GError **error)
{
  const char *v;

  if (!fw_plan_options_from_cann_env (options, NULL, error))
    return FALSE;
  if ((v = g_getenv ("AUTOFUSION_ENABLE")) != NULL && v[0] != '\0')
    {
      if (strcmp (v, "0") == 0 || g_ascii_strcasecmp (v, "false") == 0 || g_ascii_strcasecmp (v, "off") == 0)
        options->enabled = FALSE;
      else if (strcmp (v, "1") == 0 || g_ascii_strcasecmp (v, "true") == 0 || g_ascii_strcasecmp (v, "on") == 0)
        options->enabled = TRUE;
      else
        {
          g_set_error (error, FW_ERROR, FW_ERROR_USAGE, _("AUTOFUSION_ENABLE=“%s”: expected 1 or 0"), v);
          return FALSE;
        }
    }
  if ((v = g_getenv ("AUTOFUSION_MAX_DEPTH")) != NULL && v[0] != '\0')
    {
      char *end = NULL;
      gint64 n;
      errno = 0;
      n = g_ascii_strtoll (v, &end, 10);
      if (errno != 0 || *end != '\0' || n < 1 || n > 4096)
        {
          g_set_error (error, FW_ERROR, FW_ERROR_USAGE, _("AUTOFUSION_MAX_DEPTH=“%s”: expected a number from 1 to 4096"), v);
          return FALSE;
        }
      options->max_depth = (guint) n;
    }
  if ((v = g_getenv ("AUTOFUSION_STRATEGY")) != NULL && v[0] != '\0')
    {
      if (!fw_strategy_from_string (v, &options->strategy))
        {
          g_set_error (error, FW_ERROR, FW_ERROR_USAGE,
                       _("AUTOFUSION_STRATEGY=“%s”: expected conservative, balanced or aggressive"), v);
          return FALSE;
        }
    }
  if ((v = g_getenv ("AUTOFUSION_LOG_LEVEL")) != NULL && v[0] != '\0')
    {
      if (g_ascii_strcasecmp (v, "DEBUG") == 0)
        options->debug_log = TRUE;
      else if (g_ascii_strcasecmp (v, "INFO") == 0 || g_ascii_strcasecmp (v, "WARNING") == 0 ||
               g_ascii_strcasecmp (v, "ERROR") == 0)
        options->debug_log = FALSE;
      else
        {
          g_set_error (error, FW_ERROR, FW_ERROR_USAGE,
                       _("AUTOFUSION_LOG_LEVEL=“%s”: expected DEBUG, INFO, WARNING or ERROR"), v);
          return FALSE;
        }
    }
  return TRUE;
}

char *
fw_format_bytes (gdouble bytes)
{
  if (bytes >= 1024.0 * 1024 * 1024)
    return g_strdup_printf ("%.1f GiB", bytes / (1024.0 * 1024 * 1024));
  if (bytes >= 1024.0 * 1024)
    return g_strdup_printf ("%.1f MiB", bytes / (1024.0 * 1024));
  if (bytes >= 1024.0)
    return g_strdup_printf ("%.1f KiB", bytes / 1024.0);
  return g_strdup_printf ("%.0f B", bytes);
}

void
fw_plan_debug (FwPlan *plan, const char *format, ...)
{
  va_list args;

  if (!plan->options.debug_log)
    return;
  va_start (args, format);
  fputs ("autofusion: ", stderr);
  vfprintf (stderr, format, args);
  fputc ('\n', stderr);
  va_end (args);
}

static void
refusal_free (gpointer data)
{
  FwRefusal *r = data;

  g_free (r->message);
  g_clear_pointer (&r->nodes, g_ptr_array_unref);
  g_free (r);
}

/* The member of nodes that refused reads or feeds, else the first other one. */
static FwNode *
neighbour_of (GPtrArray *nodes, const FwNode *refused)
{
  FwNode *other = NULL;

  for (guint i = 0; i < nodes->len; i++)
    {
      FwNode *n = g_ptr_array_index (nodes, i);
      if (n == refused)
        continue;
      if (other == NULL)
        other = n;
      for (guint k = 0; k < refused->n_inputs; k++)
        if (refused->inputs[k] != NULL && refused->inputs[k]->producer == n)
          return n;
      for (guint k = 0; k < n->n_inputs; k++)
        if (n->inputs[k] != NULL && n->inputs[k]->producer == refused)
          return n;
    }
  return other;
}

/* CANN's log shape: "node1 /a/MatMul(MatMul) and node2 /a/Transpose(Transpose) cannot fuse, the reason is
 * [FW-NF-003][…]", so a user's grep for CANN's lines finds ours. */
static void
debug_refusal (FwPlan *plan, const FwRefusal *r)
{
  FwNode *other = r->refused != NULL ? neighbour_of (r->nodes, r->refused) : NULL;
  const char *cann = fw_reason_cann_code (r);
  g_autofree char *tag = cann ? g_strdup_printf ("[%s][%s]", fw_reason_code_string (r->code), cann)
                              : g_strdup_printf ("[%s]", fw_reason_code_string (r->code));

  if (!plan->options.debug_log)
    return;
  if (r->refused != NULL && other != NULL)
    fw_plan_debug (plan, "node1 %s(%s) and node2 %s(%s) cannot fuse, the reason is %s[%s]", other->name,
                   other->op_type, r->refused->name, r->refused->op_type, tag, r->message);
  else if (r->nodes->len > 0)
    {
      const FwNode *n = r->refused ? r->refused : g_ptr_array_index (r->nodes, 0);
      fw_plan_debug (plan, "node %s(%s)%s cannot fuse, the reason is %s[%s]", n->name, n->op_type,
                     r->nodes->len > 1 ? " and its group" : "", tag, r->message);
    }
  else
    fw_plan_debug (plan, "cannot fuse, the reason is %s[%s]", tag, r->message);
}

FwRefusal *
fw_plan_refuse_node (FwPlan *plan, FwReasonCode code, guint candidate, GPtrArray *nodes, FwNode *refused,
                     char *message)
{
  FwRefusal *r = g_new0 (FwRefusal, 1);

  r->code = code;
  r->message = message;
  r->nodes = nodes ? nodes : g_ptr_array_new ();
  r->candidate = candidate;
  r->refused = refused;
  g_ptr_array_add (plan->refusals, r);
  debug_refusal (plan, r);
  return r;
}

FwRefusal *
fw_plan_refuse (FwPlan *plan, FwReasonCode code, guint candidate, GPtrArray *nodes, char *message)
{
  return fw_plan_refuse_node (plan, code, candidate, nodes, NULL, message);
}

FwKernelSpec *
fw_plan_spec_for_nodes (FwPlan *plan, GPtrArray *nodes, FwNode *root)
{
  g_return_val_if_fail (plan != NULL, NULL);
  return fw_kernel_spec_new_for_nodes (nodes, root, plan->profile);
}

static void
candidate_free (gpointer data)
{
  FwCandidate *c = data;

  g_free (c->pattern);
  g_free (c->kind);
  g_clear_pointer (&c->rule_misses, g_ptr_array_unref);
  g_clear_pointer (&c->nodes, g_ptr_array_unref);
  g_clear_pointer (&c->spec, fw_kernel_spec_free);
  g_free (c);
}

void
fw_plan_free (FwPlan *plan)
{
  if (plan == NULL)
    return;
  g_clear_pointer (&plan->candidates, g_ptr_array_unref);
  g_clear_pointer (&plan->refusals, g_ptr_array_unref);
  g_clear_pointer (&plan->profile, fw_profile_unref);
  g_clear_object (&plan->model);
  g_clear_pointer (&plan->decisions, g_ptr_array_unref);
  g_clear_pointer (&plan->vetoed, g_ptr_array_unref);
  g_clear_pointer (&plan->vetoed_in, g_ptr_array_unref);
  g_clear_pointer (&plan->region_of, g_hash_table_unref);
  g_clear_pointer (&plan->regions, g_ptr_array_unref);
  g_free (plan->fingerprint);
  g_free (plan->group_of);
  fw_plan_options_clear (&plan->options);
  g_free (plan);
}

/* Rules name what they match exactly. A group that holds a rule's pattern after one to three leading nodes
 * (a compute root, a residual Add) is named after both: "Conv+hardswish", "Add+layernorm". */
static void
apply_rules (FwPlan *plan, FwCandidate *c)
{
  const FwRule *forbid, *rule;

  if (plan->rules == NULL)
    return;
  forbid = fw_rule_set_forbids (plan->rules, (FwNode * const *) c->nodes->pdata, c->nodes->len);
  if (forbid != NULL)
    {
      c->status = FW_CANDIDATE_REFUSED;
      fw_plan_refuse (plan, FW_NF_FORBIDDEN, c->index, g_ptr_array_copy (c->nodes, NULL, NULL),
                      g_strdup_printf (_("rule “%s” (%s:%u) forbids this pattern"), forbid->name,
                                       forbid->file ? forbid->file : "?", forbid->line));
      return;
    }
  /* What a rule's `when` kept from naming the group, whether or not another rule names it. */
  g_clear_pointer (&c->rule_misses, g_ptr_array_unref);
  c->rule_misses = g_ptr_array_new_with_free_func ((GDestroyNotify) fw_rule_miss_free);
  for (guint skip = 0; skip <= 3 && skip + 2 <= c->nodes->len; skip++)
    {
      rule = fw_rule_set_match_explain (plan->rules, (FwNode * const *) c->nodes->pdata + skip, c->nodes->len - skip,
                                        c->rule_misses);
      if (rule == NULL)
        continue;
      c->rule = rule;
      g_free (c->pattern);
      if (skip == 0)
        c->pattern = g_strdup (rule->name);
      else
        {
          GString *name = g_string_new (NULL);
          for (guint i = 0; i < skip; i++)
            g_string_append_printf (name, "%s+", ((FwNode *) g_ptr_array_index (c->nodes, i))->op_type);
          g_string_append (name, rule->name);
          c->pattern = g_string_free (name, FALSE);
        }
      return;
    }
}

/* Every region's nodes count once: a body's are what one branch taken or one iteration runs. */
void
fw_plan_add_totals (FwPlan *plan)
{
  memset (&plan->before, 0, sizeof plan->before);
  for (guint g = 0; g < plan->regions->len; g++)
    {
      FwGraph *graph = ((FwPlanRegion *) g_ptr_array_index (plan->regions, g))->graph;

      for (guint i = 0; i < graph->nodes->len; i++)
        {
          FwNode *node = g_ptr_array_index (graph->nodes, i);
          gdouble r, w, f;

          if (!fw_node_runs (node))
            continue;
          plan->before.time_s += fw_estimate_node_time (node, plan->profile, &r, &w, &f);
          plan->before.bytes_read += r;
          plan->before.bytes_written += w;
          plan->before.flops += f;
          plan->before.launches++;
        }
    }
  plan->after = plan->before;
  for (guint i = 0; i < plan->candidates->len; i++)
    {
      FwCandidate *c = g_ptr_array_index (plan->candidates, i);

      if (!fw_candidate_is_fused (c))
        continue;
      plan->after.time_s -= fw_candidate_get_cost (c)->time_before_s - fw_candidate_get_cost (c)->time_after_s;
      plan->after.bytes_read -= fw_candidate_get_cost (c)->bytes_read_before - fw_candidate_get_cost (c)->bytes_read_after;
      plan->after.bytes_written -= fw_candidate_get_cost (c)->bytes_written_before - fw_candidate_get_cost (c)->bytes_written_after;
      plan->after.launches -= fw_candidate_get_cost (c)->launches_before - fw_candidate_get_cost (c)->launches_after;
    }
}

void
fw_plan_settle (FwPlan *plan, FwCandidate *c)
{
  g_autofree char *ub = fw_format_bytes (fw_candidate_get_resource (c)->ub_bytes);
  g_autofree char *budget = fw_format_bytes (fw_candidate_get_resource (c)->ub_budget_bytes);

  fw_plan_debug (plan, "resource estimate for %s #%u: tile %" PRId64 " elements, UB %s of %s (%.0f%%), "
                 "%u inputs, %u queues; time %.2f us → %.2f us",
                 c->pattern, c->index, fw_candidate_get_resource (c)->tile_elements, ub, budget, fw_candidate_get_resource (c)->ub_percent,
                 fw_candidate_get_resource (c)->kernel_inputs, fw_candidate_get_resource (c)->queues, fw_candidate_get_cost (c)->time_before_s * 1e6,
                 fw_candidate_get_cost (c)->time_after_s * 1e6);
  apply_rules (plan, c);
  /* Discovery checked the group against the budget by the planner's own buffer plan; priced by the target's
   * buffers (composed operators' scratch, expansions) its smallest tile may still not fit. */
  if (c->status == FW_CANDIDATE_PROPOSED && fw_candidate_get_resource (c)->ub_min_bytes > fw_candidate_get_resource (c)->ub_budget_bytes)
    {
      g_autofree char *need = fw_format_bytes (fw_candidate_get_resource (c)->ub_min_bytes);
      c->status = FW_CANDIDATE_REFUSED;
      fw_plan_refuse (plan, FW_NF_UB, c->index, g_ptr_array_copy (c->nodes, NULL, NULL),
                      g_strdup_printf (_("the kernel's buffers need %s of UB for its smallest tile (%" PRId64
                                         " elements, %u buffers), budget %s (%s)"),
                                       need, fw_candidate_get_resource (c)->tile_elements, fw_candidate_get_resource (c)->n_buffers, budget,
                                       plan->profile->name));
    }
  if (c->status == FW_CANDIDATE_PROPOSED && fw_candidate_get_cost (c)->saving_s <= 0)
    {
      c->status = FW_CANDIDATE_REFUSED;
      fw_plan_refuse (plan, FW_NF_NO_BENEFIT, c->index, g_ptr_array_copy (c->nodes, NULL, NULL),
                      g_strdup_printf (_("fused %.2f us, unfused %.2f us on %s: no time saved"),
                                       fw_candidate_get_cost (c)->time_after_s * 1e6, fw_candidate_get_cost (c)->time_before_s * 1e6,
                                       plan->profile->name));
    }
  if (c->status == FW_CANDIDATE_PROPOSED)
    fw_plan_debug (plan, "accepted %s #%u (%u nodes)", c->pattern, c->index, c->nodes->len);
}

void
fw_plan_rebuild (FwPlan *plan)
{
  g_ptr_array_set_size (plan->candidates, 0);
  g_ptr_array_set_size (plan->refusals, 0);
  g_ptr_array_set_size (plan->vetoed, 0);
  g_ptr_array_set_size (plan->vetoed_in, 0);
  for (guint g = 0; g < plan->regions->len; g++)
    {
      FwPlanRegion *region = g_ptr_array_index (plan->regions, g);
      memset (region->group_of, 0, sizeof (guint) * MAX (region->graph->nodes->len, 1));
    }
  if (plan->options.enabled)
    fw_discover (plan);
  for (guint i = 0; i < plan->candidates->len; i++)
    fw_plan_settle (plan, g_ptr_array_index (plan->candidates, i));
  fw_plan_add_totals (plan);
  /* No decision has been applied yet, so this is the planner's own proposal; decisions change only
   * `after`, and the pictures compare the two. */
  plan->proposed = plan->after;
}

FwPlan *
fw_plan_new (FwModel *model, FwProfile *profile, FwRuleSet *rules, const FwPlanOptions *options, GError **error)
{
  g_autoptr(FwPlan) plan = g_new0 (FwPlan, 1);
  FwGraph *graph = fw_model_get_graph (model);

  plan->model = g_object_ref (model);
  plan->profile = fw_profile_ref (profile);
  plan->rules = rules;
  if (options)
    plan->options = *options;
  else
    fw_plan_options_init (&plan->options);
  plan->options.skips = fw_node_skips_ref (plan->options.skips);
  if (plan->options.max_depth == 0)
    plan->options.max_depth = DEFAULT_MAX_DEPTH;
  if (plan->options.max_fusion_size == 0)
    plan->options.max_fusion_size = MAX (profile->max_fused_nodes, 2u);
  plan->candidates = g_ptr_array_new_with_free_func (candidate_free);
  plan->refusals = g_ptr_array_new_with_free_func (refusal_free);
  plan->decisions = g_ptr_array_new_with_free_func ((GDestroyNotify) fw_decision_free);
  plan->vetoed = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  plan->vetoed_in = g_ptr_array_new ();
  plan->group_of = g_new0 (guint, MAX (graph->nodes->len, 1));
  if (!graph->linked)
    {
      g_set_error (error, FW_ERROR, FW_ERROR_INTERNAL, "the graph is not linked");
      return NULL;
    }
  fw_plan_find_regions (plan);
  fw_plan_rebuild (plan);
  return g_steal_pointer (&plan);
}

const FwPlanRegion *
fw_plan_get_region (const FwPlan *plan, const FwGraph *graph)
{
  g_return_val_if_fail (plan != NULL, NULL);
  return plan->region_of != NULL && graph != NULL ? g_hash_table_lookup (plan->region_of, graph) : NULL;
}

guint
fw_plan_group_of (const FwPlan *plan, const FwNode *node)
{
  const FwPlanRegion *region = fw_plan_get_region (plan, node->graph);

  return region != NULL && node->index < node->graph->nodes->len ? region->group_of[node->index] : 0;
}

void
fw_plan_get_node_counts (const FwPlan *plan, guint *before, guint *after)
{
  guint n = fw_graph_get_n_nodes (fw_model_get_graph (plan->model)), fused = 0, groups = 0;

  for (guint i = 0; i < plan->candidates->len; i++)
    {
      const FwCandidate *c = g_ptr_array_index (plan->candidates, i);
      /* A body's groups are counted in the body, not among the main graph's nodes. */
      if (fw_candidate_is_fused (c) && c->nodes && c->nodes->len && c->body == NULL)
        {
          fused += c->nodes->len;
          groups++;
        }
    }
  *before = n;
  *after = n - fused + groups;
}
