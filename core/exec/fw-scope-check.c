/* fw-scope-check.c: SuperKernel scope programs against the reference interpreter, and timed against their
 * members run one by one (fw-fused.h). */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "fw-error.h"
#include "fw-exec-private.h"
#include "fw-fused.h"

void
fw_scope_check_result_free (FwScopeCheckResult *result)
{
  if (result == NULL)
    return;
  if (result->scopes)
    g_array_unref (result->scopes);
  g_free (result);
}

static void
clear_arrays (FwArray **arrays, guint n)
{
  for (guint i = 0; i < n; i++)
    g_clear_pointer (&arrays[i], fw_array_unref);
}

static const FwGroupKernel *
kernel_for (GPtrArray *kernels, guint candidate)
{
  for (guint k = 0; kernels != NULL && k < kernels->len; k++)
    if (((const FwGroupKernel *) g_ptr_array_index (kernels, k))->candidate == candidate)
      return g_ptr_array_index (kernels, k);
  return NULL;
}

/* The array env holds for v, or the constant's; a new reference, or NULL with error. */
static FwArray *
lookup (GHashTable *env, FwValue *v, GError **error)
{
  FwArray *a = g_hash_table_lookup (env, v);

  if (a != NULL)
    return fw_array_ref (a);
  if (v->constant != NULL)
    return fw_array_new_from_tensor (v->constant, error);
  g_set_error (error, FW_ERROR, FW_ERROR_INTERNAL, _("value “%s” is not available to its scope"), v->name);
  return NULL;
}

/* One member on its own: a group's kernel (its reference ops when it has none), or a single op's reference
 * kernel; its outputs go into env. */
static gboolean
run_member (FwExecContext *ctx, FwPlan *plan, GPtrArray *kernels, const FwScopeMember *m, GHashTable *env,
            GError **error)
{
  const FwGroupKernel *kernel = m->node == NULL ? kernel_for (kernels, m->candidate) : NULL;
  guint n_in, n_out;
  g_autofree FwArray **in = NULL, **out = NULL;
  gboolean ok = TRUE;

  if (m->node == NULL && kernel == NULL)
    {
      FwGroupKernel *reference = fw_group_kernel_new_reference (plan, m->candidate);
      FwCandidate *c = g_ptr_array_index (plan->candidates, m->candidate);

      n_in = reference->n_inputs;
      n_out = reference->n_outputs;
      in = g_new0 (FwArray *, n_in + 1);
      out = g_new0 (FwArray *, n_out + 1);
      for (guint i = 0; i < n_in && ok; i++)
        ok = (in[i] = lookup (env, reference->inputs[i], error)) != NULL;
      ok = ok && fw_group_run_reference (ctx, reference, c->nodes, in, out, error);
      for (guint o = 0; ok && o < n_out; o++)
        g_hash_table_replace (env, reference->outputs[o], g_steal_pointer (&out[o]));
      clear_arrays (in, n_in);
      clear_arrays (out, n_out);
      fw_group_kernel_reference_free (reference);
      return ok;
    }
  n_in = kernel ? kernel->n_inputs : m->node->n_inputs;
  n_out = kernel ? kernel->n_outputs : m->node->n_outputs;
  in = g_new0 (FwArray *, n_in + 1);
  out = g_new0 (FwArray *, n_out + 1);
  for (guint i = 0; i < n_in && ok; i++)
    {
      FwValue *v = kernel ? kernel->inputs[i] : m->node->inputs[i];

      if (v != NULL)
        ok = (in[i] = lookup (env, v, error)) != NULL;
    }
  if (ok)
    ok = kernel ? kernel->run (kernel->data, in, out, ctx->n_threads, error)
                : fw_exec_run_node (ctx, m->node, in, out, error);
  for (guint o = 0; ok && o < n_out; o++)
    {
      FwValue *v = kernel ? kernel->outputs[o] : m->node->outputs[o];

      if (v != NULL && out[o] != NULL)
        g_hash_table_replace (env, v, g_steal_pointer (&out[o]));
    }
  clear_arrays (in, n_in);
  clear_arrays (out, n_out);
  return ok;
}

/* The scope's members one after another from its boundary inputs to its boundary outputs. */
static gboolean
run_members (FwExecContext *ctx, FwPlan *plan, GPtrArray *kernels, const FwScopeKernel *scope, FwArray *const *in,
             FwArray **out, GError **error)
{
  g_autoptr(GHashTable) env = g_hash_table_new_full (NULL, NULL, NULL, (GDestroyNotify) fw_array_unref);
  gboolean ok = TRUE;

  for (guint i = 0; i < scope->kernel.n_inputs; i++)
    g_hash_table_insert (env, scope->kernel.inputs[i], fw_array_ref (in[i]));
  for (guint m = 0; m < scope->n_members && ok; m++)
    ok = run_member (ctx, plan, kernels, &scope->members[m], env, error);
  for (guint o = 0; ok && o < scope->kernel.n_outputs; o++)
    ok = (out[o] = lookup (env, scope->kernel.outputs[o], error)) != NULL;
  if (!ok)
    clear_arrays (out, scope->kernel.n_outputs);
  return ok;
}

typedef struct
{
  FwExecContext       *ctx;
  FwPlan              *plan;
  GPtrArray           *kernels;
  const FwScopeKernel *scope;
  FwArray            **in;
  FwFusedProgram      *plain;    /* the model's fused program without the scopes */
  FwFusedProgram      *scoped;   /* and with them */
  GPtrArray           *inputs;
} Timed;

static gboolean
time_scope (gpointer data, GError **error)
{
  Timed *t = data;
  g_autofree FwArray **out = g_new0 (FwArray *, t->scope->kernel.n_outputs + 1);
  gboolean ok = t->scope->kernel.run (t->scope->kernel.data, t->in, out, t->ctx->n_threads, error);

  clear_arrays (out, t->scope->kernel.n_outputs);
  return ok;
}

static gboolean
time_members (gpointer data, GError **error)
{
  Timed *t = data;
  g_autofree FwArray **out = g_new0 (FwArray *, t->scope->kernel.n_outputs + 1);
  gboolean ok = run_members (t->ctx, t->plan, t->kernels, t->scope, t->in, out, error);

  clear_arrays (out, t->scope->kernel.n_outputs);
  return ok;
}

static gboolean
time_model (Timed *t, FwFusedProgram *program, GError **error)
{
  const FwGraph *graph = fw_model_get_graph (t->plan->model);
  g_autofree FwArray **out = g_new0 (FwArray *, graph->outputs->len + 1);
  gboolean ok = fw_fused_program_run (program, t->ctx, (FwArray *const *) t->inputs->pdata, t->inputs->len, out,
                                      NULL, error);

  clear_arrays (out, graph->outputs->len);
  return ok;
}

static gboolean
time_plain_model (gpointer data, GError **error)
{
  return time_model (data, ((Timed *) data)->plain, error);
}

static gboolean
time_scoped_model (gpointer data, GError **error)
{
  return time_model (data, ((Timed *) data)->scoped, error);
}

/* One scope, on the reference's values in ref: compared, timed or both. */
static gboolean
check_scope (Timed *t, const FwScopeCheckOptions *options, GHashTable *ref, FwScopeCheck *check, GError **error)
{
  const FwGroupKernel *kernel = &t->scope->kernel;
  g_autofree FwArray **in = g_new0 (FwArray *, kernel->n_inputs + 1);
  g_autofree FwArray **out = g_new0 (FwArray *, kernel->n_outputs + 1);
  guint warmup = options->warmup ? options->warmup : 1, repeats = options->repeats ? options->repeats : 5;
  gboolean ok;

  check->pass = TRUE;
  if (!fw_verify_gather_inputs (kernel, ref, 0, in, NULL, error))
    return FALSE;
  t->in = in;
  ok = kernel->run (kernel->data, in, out, t->ctx->n_threads, error);
  for (guint o = 0; ok && options->verify && o < kernel->n_outputs; o++)
    {
      FwValue *v = kernel->outputs[o];
      FwArray *r = g_hash_table_lookup (ref, v);
      FwTolerance tol = options->has_tolerance ? options->tolerance : fw_tolerance_for_dtype (v->dtype);
      FwCompare c;

      if (r == NULL || out[o] == NULL)
        {
          g_set_error (error, FW_ERROR, FW_ERROR_INTERNAL, _("scope output “%s” was not computed"), v->name);
          ok = FALSE;
          break;
        }
      fw_compare_arrays (r, out[o], &tol, &c);
      if (o == 0)
        check->isolated = c;
      else
        {
          check->isolated.max_abs = MAX (check->isolated.max_abs, c.max_abs);
          check->isolated.max_rel = MAX (check->isolated.max_rel, c.max_rel);
          check->isolated.n_failed += c.n_failed;
          check->isolated.n_elements += c.n_elements;
          check->isolated.nan_mismatch |= c.nan_mismatch;
          check->isolated.pass = check->isolated.pass && c.pass;
        }
      check->pass = check->isolated.pass;
    }
  clear_arrays (out, kernel->n_outputs);
  if (ok && options->measure)
    {
      FwMeasurePair pair;

      ok = fw_measure_time_pair (time_scope, time_members, t, warmup, repeats, options->cancellable, &pair, error);
      check->scope_s = pair.a_s;
      check->members_s = pair.b_s;
    }
  clear_arrays (in, kernel->n_inputs);
  t->in = NULL;
  if (!ok)
    g_prefix_error (error, _("SuperKernel scope %s: "), t->scope->name);
  return ok;
}

/* The whole model without and with the scopes, samples alternating (fw_measure_time_pair). */
static gboolean
time_models (Timed *t, const FwScopeCheckOptions *options, FwScopeCheckResult *result, GError **error)
{
  FwMeasurePair pair;

  if (!fw_measure_time_pair (time_plain_model, time_scoped_model, t, 1, options->repeats ? options->repeats : 5,
                             options->cancellable, &pair, error))
    return FALSE;
  result->fused_s = pair.a_s;
  result->scoped_s = pair.b_s;
  return TRUE;
}

static gboolean
check_outputs (Timed *t, FwFusedProgram *scoped, FwArray **ref_out, const FwScopeCheckOptions *options,
               FwScopeCheckResult *result, GError **error)
{
  const FwGraph *graph = fw_model_get_graph (t->plan->model);
  guint n_out = graph->outputs->len;
  g_autofree FwArray **out = g_new0 (FwArray *, n_out + 1);

  if (!fw_fused_program_run (scoped, t->ctx, (FwArray *const *) t->inputs->pdata, t->inputs->len, out, NULL,
                             error))
    return FALSE;
  result->outputs_pass = TRUE;
  for (guint o = 0; o < n_out; o++)
    {
      FwTolerance tol = options->has_tolerance ? options->tolerance : fw_tolerance_for_dtype (ref_out[o]->dtype);
      FwCompare c;

      fw_compare_arrays (ref_out[o], out[o], &tol, &c);
      result->outputs_pass = result->outputs_pass && c.pass;
    }
  clear_arrays (out, n_out);
  return TRUE;
}

FwScopeCheckResult *
fw_scope_check_run (FwPlan *plan, GPtrArray *kernels, GPtrArray *scopes, const FwScopeCheckOptions *options,
                    GError **error)
{
  FwGraph *graph = fw_model_get_graph (plan->model);
  g_autoptr(FwExecContext) ctx = fw_exec_context_new (options->n_threads, options->cancellable);
  g_autoptr(GHashTable) ref = g_hash_table_new_full (NULL, NULL, NULL, (GDestroyNotify) fw_array_unref);
  g_autoptr(GPtrArray) inputs = NULL;
  g_autoptr(FwFusedProgram) plain = NULL, scoped = NULL;
  g_autoptr(FwScopeCheckResult) result = g_new0 (FwScopeCheckResult, 1);
  guint n_out = graph->outputs->len;
  g_autofree FwArray **ref_out = g_new0 (FwArray *, n_out + 1);
  Timed t = { ctx, plan, kernels, NULL, NULL, NULL, NULL };
  gboolean ok;

  result->scopes = g_array_new (FALSE, TRUE, sizeof (FwScopeCheck));
  result->outputs_pass = TRUE;
  result->verified = options->verify;
  result->measured = options->measure;
  inputs = fw_exec_make_inputs (plan->model, options->seed, error);
  if (inputs == NULL)
    return NULL;
  t.inputs = inputs;
  plain = fw_fused_program_new (plan, kernels, error);
  if (plain == NULL)
    return NULL;
  scoped = fw_fused_program_new_with_scopes (plan, kernels, scopes, error);
  if (scoped == NULL)
    return NULL;
  for (guint s = 0; s < scopes->len; s++)
    {
      const FwGroupKernel *kernel = &((const FwScopeKernel *) g_ptr_array_index (scopes, s))->kernel;

      for (guint i = 0; i < kernel->n_inputs; i++)
        if (kernel->inputs[i]->constant == NULL)
          g_hash_table_insert (ref, kernel->inputs[i], NULL);
      for (guint o = 0; o < kernel->n_outputs; o++)
        g_hash_table_insert (ref, kernel->outputs[o], NULL);
    }
  ok = fw_exec_run_reference (ctx, graph, (FwArray *const *) inputs->pdata, inputs->len, ref_out, ref, error);
  if (ok && options->verify)
    ok = check_outputs (&t, scoped, ref_out, options, result, error);
  clear_arrays (ref_out, n_out);
  if (!ok)
    return NULL;
  result->pass = result->outputs_pass;
  for (guint s = 0; s < scopes->len; s++)
    {
      FwScopeCheck check = { 0 };

      t.scope = check.scope = g_ptr_array_index (scopes, s);
      /* A scope left out of the fused schedule still runs and is compared on its own. */
      check.contracted = fw_fused_program_has_scope (scoped, check.scope);
      if (!check_scope (&t, options, ref, &check, error))
        return NULL;
      result->pass = result->pass && check.pass;
      g_array_append_val (result->scopes, check);
    }
  g_hash_table_remove_all (ref);
  t.plain = plain;
  t.scoped = scoped;
  if (options->measure && !time_models (&t, options, result, error))
    return NULL;
  return g_steal_pointer (&result);
}
