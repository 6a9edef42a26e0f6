/* fw-fused.c: the fused executor: the graph with each fused group contracted to one step. */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "fw-error.h"
#include "fw-exec-private.h"
#include "fw-fused.h"
#include "plan/fw-plan.h"
#include "plan/fw-schedule.h"

static guint8 *channels_last_values (FwFusedProgram *program);

typedef struct
{
  FwNode              *node;    /* a node run on its reference kernel, or NULL */
  const FwGroupKernel *kernel;  /* a fused group or a scope's program, or NULL */
  const FwScopeKernel *scope;   /* the scope whose kernel it is, or NULL */
} Step;

struct _FwFusedProgram
{
  FwPlan     *plan;
  FwGraph    *graph;
  GArray     *steps;     /* Step, in a topological order of the contracted graph */
  guint       n_scopes;  /* scopes contracted to one step */
  /* The main graph's program only: FwGraph* → FwFusedProgram* for every control-flow body with kernels
     (owned), which the If and Loop kernels run in place of the body's reference (fw_exec_run_subgraph). */
  GHashTable *bodies;
  /* The main graph's program only: FwNode* → FwNodeKernel* (not owned), or NULL. */
  GHashTable *node_kernels;
  /* The main graph's program only: per step, whether its node gives the same results on every run
     (mark_foldable), and those results, FwValue* → FwArray*, kept by the first run that needed them. */
  guint8     *foldable;
  GHashTable *folded;
  GMutex      fold_lock;
  /* Decided on the first run, once the node kernels are known (prepare_runs), so that a later run
     allocates nothing of its own: the schedule's uses of each value, the values kept channels-last, the
     pointers one step's inputs and outputs take at most, each constant's array (by value index, NULL for
     the rest), and the run states no run holds now (RunState; runs of one program may overlap). */
  GMutex      run_lock;
  gboolean    prepared;
  guint      *step_uses;
  guint8     *cl;
  guint       scratch_len;
  FwArray   **constants;
  GPtrArray  *idle;
};

/* What one run needs besides its values' arrays: the uses left of each value, the values' table and room
 * for one step's input and output pointers. */
typedef struct
{
  guint    *uses;
  FwArray **values;
  FwArray **scratch;
} RunState;

static void
run_state_free (RunState *st)
{
  g_free (st->uses);
  g_free (st->values);
  g_free (st->scratch);
  g_free (st);
}

/* An integer kernel (plan/fw-qdq.h) reads a shared DequantizeLinear's integer input instead of its output. */
static gboolean
reads_through (const FwValue *read, const FwValue *needed)
{
  const FwNode *dq = needed->producer;

  return dq != NULL && dq->domain[0] == '\0' && strcmp (dq->op_type, "DequantizeLinear") == 0 && dq->n_inputs > 0 &&
         dq->inputs[0] == read;
}

/* Values a group reads from outside / writes for outside use. Constants count as inputs: a kernel may take
 * them as arrays or have folded them into its code. */
static gboolean
check_boundary (FwPlan *plan, const FwGroupKernel *kernel, const guint8 *member, GError **error)
{
  FwCandidate *c = g_ptr_array_index (plan->candidates, kernel->candidate);

  for (guint n = 0; n < c->nodes->len; n++)
    {
      FwNode *node = g_ptr_array_index (c->nodes, n);

      for (guint i = 0; i < node->n_inputs; i++)
        {
          FwValue *v = node->inputs[i];
          gboolean found = FALSE;

          if (v == NULL || v->constant != NULL ||
              (v->producer != NULL && v->producer->graph == node->graph && member[v->producer->index]))
            continue;
          for (guint k = 0; k < kernel->n_inputs && !found; k++)
            found = kernel->inputs[k] == v || reads_through (kernel->inputs[k], v);
          if (!found)
            {
              g_set_error (error, FW_ERROR, FW_ERROR_INTERNAL,
                           _("the kernel of candidate %u does not read “%s”, which its group needs"),
                           kernel->candidate, v->name);
              return FALSE;
            }
        }
      for (guint o = 0; o < node->n_outputs; o++)
        {
          FwValue *v = node->outputs[o];
          gboolean outside = FALSE, found = FALSE;

          if (v == NULL)
            continue;
          outside = v->is_output;
          for (guint u = 0; u < v->n_uses && !outside; u++)
            outside = v->uses[u].node->graph != node->graph || !member[v->uses[u].node->index];
          if (!outside)
            continue;
          for (guint k = 0; k < kernel->n_outputs && !found; k++)
            found = kernel->outputs[k] == v;
          if (!found)
            {
              g_set_error (error, FW_ERROR, FW_ERROR_INTERNAL,
                           _("the kernel of candidate %u does not write “%s”, which is used outside its group"),
                           kernel->candidate, v->name);
              return FALSE;
            }
        }
    }
  return TRUE;
}

/* A node whose every output was folded at load: running it does nothing. */
static gboolean
folded_node (const FwNode *node)
{
  for (guint k = 0; k < node->n_outputs; k++)
    if (node->outputs[k] != NULL && node->outputs[k]->constant == NULL)
      return FALSE;
  return TRUE;
}

static gboolean
is_member (const FwScopeKernel *scope, const Step *step)
{
  for (guint m = 0; m < scope->n_members; m++)
    {
      const FwScopeMember *member = &scope->members[m];

      if (member->node != NULL ? step->node == member->node
                               : step->kernel != NULL && step->kernel->candidate == member->candidate)
        return TRUE;
    }
  return FALSE;
}

/* Whether node reads a value one of the scope's members makes. */
static gboolean
reads_members (FwPlan *plan, const FwScopeKernel *scope, const FwNode *node)
{
  for (guint k = 0; k < node->n_inputs; k++)
    {
      const FwNode *producer = node->inputs[k] ? node->inputs[k]->producer : NULL;

      for (guint m = 0; producer != NULL && m < scope->n_members; m++)
        {
          const FwScopeMember *member = &scope->members[m];

          if (member->node != NULL ? member->node == producer
                                   : g_ptr_array_find (((FwCandidate *) g_ptr_array_index (plan->candidates,
                                                                                            member->candidate))->nodes,
                                                       producer, NULL))
            return TRUE;
        }
    }
  return FALSE;
}

/* Replaces the scope's members by one step when they are consecutive steps; a node between them that reads
 * nothing they make (a folded node, a view of a weight the program leaves out) moves before it. FALSE, the
 * steps untouched, when they are not. */
static gboolean
contract_scope (FwPlan *plan, GArray *steps, const FwScopeKernel *scope)
{
  guint first = G_MAXUINT, last = 0, found = 0, at;
  g_autoptr(GArray) folded = g_array_new (FALSE, FALSE, sizeof (Step));
  Step one = { NULL, &scope->kernel, scope };

  for (guint s = 0; s < steps->len; s++)
    if (is_member (scope, &g_array_index (steps, Step, s)))
      {
        first = MIN (first, s);
        last = s;
        found++;
      }
  if (found != scope->n_members || found == 0)
    return FALSE;
  for (guint s = first; s <= last; s++)
    {
      const Step *step = &g_array_index (steps, Step, s);

      if (is_member (scope, step))
        continue;
      if (step->node == NULL || (!folded_node (step->node) && reads_members (plan, scope, step->node)))
        return FALSE;
      g_array_append_val (folded, *step);
    }
  g_array_remove_range (steps, first, last - first + 1);
  g_array_insert_vals (steps, first, folded->data, folded->len);
  at = first + folded->len;
  g_array_insert_val (steps, at, one);
  return TRUE;
}

guint
fw_fused_program_get_n_channels_last (FwFusedProgram *program)
{
  g_autofree guint8 *cl = channels_last_values (program);
  guint n = 0;

  for (guint i = 0; i < program->graph->values->len; i++)
    n += cl[i];
  return n;
}

guint
fw_fused_program_get_n_scopes (FwFusedProgram *program)
{
  return program->n_scopes;
}

gboolean
fw_fused_program_has_scope (FwFusedProgram *program, const FwScopeKernel *scope)
{
  for (guint s = 0; s < program->steps->len; s++)
    if (g_array_index (program->steps, Step, s).scope == scope)
      return TRUE;
  return FALSE;
}

/* The program of one graph (the main graph or a body): kernels are that graph's groups, scopes (main graph
 * only) are contracted to one step each. */
static FwFusedProgram *
program_in (FwPlan *plan, FwGraph *graph, GPtrArray *kernels, GPtrArray *scopes, GError **error)
{
  g_autoptr(FwFusedProgram) program = g_new0 (FwFusedProgram, 1);
  guint n_kernels = kernels ? kernels->len : 0;
  g_autofree guint *groups = g_new (guint, MAX (n_kernels, 1));
  g_autofree guint8 *member = g_new0 (guint8, MAX (graph->nodes->len, 1));
  g_autoptr(GArray) schedule = NULL;

  program->plan = plan;
  program->graph = graph;
  program->steps = g_array_new (FALSE, FALSE, sizeof (Step));
  g_mutex_init (&program->run_lock);
  program->idle = g_ptr_array_new_with_free_func ((GDestroyNotify) run_state_free);
  for (guint k = 0; k < n_kernels; k++)
    groups[k] = ((const FwGroupKernel *) g_ptr_array_index (kernels, k))->candidate;
  /* The schedule checks the candidates (in range, no node in two) before the boundaries are looked at. */
  schedule = fw_schedule_build_in (plan, graph, groups, n_kernels, error);
  if (schedule == NULL)
    return NULL;
  for (guint k = 0; k < n_kernels; k++)
    {
      const FwGroupKernel *kernel = g_ptr_array_index (kernels, k);
      FwCandidate *c = g_ptr_array_index (plan->candidates, kernel->candidate);
      gboolean ok;

      for (guint n = 0; n < c->nodes->len; n++)
        member[((FwNode *) g_ptr_array_index (c->nodes, n))->index] = 1;
      ok = check_boundary (plan, kernel, member, error);
      for (guint n = 0; n < c->nodes->len; n++)
        member[((FwNode *) g_ptr_array_index (c->nodes, n))->index] = 0;
      if (!ok)
        return NULL;
    }
  for (guint i = 0; i < schedule->len; i++)
    {
      const FwScheduleStep *from = &g_array_index (schedule, FwScheduleStep, i);
      Step step = { from->node, from->node == NULL ? g_ptr_array_index (kernels, from->group) : NULL, NULL };

      g_array_append_val (program->steps, step);
    }
  for (guint i = 0; scopes != NULL && i < scopes->len; i++)
    program->n_scopes += contract_scope (plan, program->steps, g_ptr_array_index (scopes, i));
  return g_steal_pointer (&program);
}

/* The kernels of one region's candidates. A kernel whose candidate is out of range goes to the main graph,
 * whose schedule reports it. */
static GPtrArray *
kernels_in (FwPlan *plan, GPtrArray *kernels, const FwGraph *graph)
{
  GPtrArray *mine = g_ptr_array_new ();
  FwGraph *main_graph = fw_model_get_graph (plan->model);

  for (guint k = 0; kernels && k < kernels->len; k++)
    {
      const FwGroupKernel *kernel = g_ptr_array_index (kernels, k);
      const FwCandidate *c = kernel->candidate < plan->candidates->len
                             ? g_ptr_array_index (plan->candidates, kernel->candidate) : NULL;
      const FwGraph *in = c != NULL && c->nodes->len > 0 ? ((FwNode *) g_ptr_array_index (c->nodes, 0))->graph
                                                          : main_graph;

      if (in == graph || (graph == main_graph && fw_plan_get_region (plan, in) == NULL))
        g_ptr_array_add (mine, (gpointer) kernel);
    }
  return mine;
}

/* Whether the node computes the same results from the same inputs: no random op, no body, no custom op. */
static gboolean
deterministic (const FwNode *node)
{
  static const char *const random[] = { "RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike",
                                        "Multinomial", "Bernoulli" };

  if (node->domain[0] != '\0' || (node->implicit_inputs != NULL && node->implicit_inputs->len > 0))
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (random); i++)
    if (strcmp (node->op_type, random[i]) == 0)
      return FALSE;
  return TRUE;
}

/* The steps on the reference kernels whose inputs are constants (not graph inputs, which a caller may give
 * instead of their initializers) or results of such steps, and Shape or Size of a static value: their
 * results are computed once and kept (run_folded). bert_like_qdq dequantised four weight matrices on every
 * run (4.8 of its 20 ms); swin_t runs 2,759 Constant nodes. A graph output is left to run: the caller owns
 * what it gets. */
static void
mark_foldable (FwFusedProgram *program)
{
  FwGraph *graph = program->graph;
  g_autofree guint8 *fixed = g_new0 (guint8, graph->values->len + 1);

  program->foldable = g_new0 (guint8, program->steps->len + 1);
  program->folded = g_hash_table_new_full (NULL, NULL, NULL, (GDestroyNotify) fw_array_unref);
  g_mutex_init (&program->fold_lock);
  for (guint i = 0; i < graph->values->len; i++)
    {
      const FwValue *v = g_ptr_array_index (graph->values, i);
      fixed[i] = v->constant != NULL && !v->is_input;
    }
  for (guint s = 0; s < program->steps->len; s++)
    {
      const FwNode *node = g_array_index (program->steps, Step, s).node;
      gboolean shape, all;

      if (node == NULL || node->n_outputs == 0 || !deterministic (node))
        continue;
      shape = (strcmp (node->op_type, "Shape") == 0 || strcmp (node->op_type, "Size") == 0) && node->n_inputs == 1 &&
              node->inputs[0] != NULL && fw_value_is_static (node->inputs[0]);
      all = TRUE;
      for (guint i = 0; i < node->n_inputs && all && !shape; i++)
        all = node->inputs[i] == NULL || (node->inputs[i]->graph == graph && fixed[node->inputs[i]->index]);
      for (guint o = 0; o < node->n_outputs && all; o++)
        all = node->outputs[o] == NULL || (node->outputs[o]->graph == graph && !node->outputs[o]->is_output);
      if (!all)
        continue;
      program->foldable[s] = 1;
      for (guint o = 0; o < node->n_outputs; o++)
        if (node->outputs[o] != NULL)
          fixed[node->outputs[o]->index] = 1;
    }
}

FwFusedProgram *
fw_fused_program_new_with_scopes (FwPlan *plan, GPtrArray *kernels, GPtrArray *scopes, GError **error)
{
  FwGraph *graph = fw_model_get_graph (plan->model);
  g_autoptr(GPtrArray) main_kernels = kernels_in (plan, kernels, graph);
  g_autoptr(FwFusedProgram) program = program_in (plan, graph, main_kernels, scopes, error);

  if (program == NULL)
    return NULL;
  /* FW_FUSED_NO_FOLD: every step run on every run, to measure or test what keeping them saves. */
  if (g_getenv ("FW_FUSED_NO_FOLD") == NULL)
    mark_foldable (program);
  program->bodies = g_hash_table_new_full (NULL, NULL, NULL, (GDestroyNotify) fw_fused_program_free);
  for (guint r = 1; plan->regions != NULL && r < plan->regions->len; r++)
    {
      const FwPlanRegion *region = g_ptr_array_index (plan->regions, r);
      g_autoptr(GPtrArray) mine = kernels_in (plan, kernels, region->graph);
      FwFusedProgram *body;

      if (mine->len == 0)
        continue;
      body = program_in (plan, region->graph, mine, NULL, error);
      if (body == NULL)
        {
          g_prefix_error (error, "%s: ", region->path);
          return NULL;
        }
      g_hash_table_insert (program->bodies, region->graph, body);
    }
  return g_steal_pointer (&program);
}

FwFusedProgram *
fw_fused_program_new (FwPlan *plan, GPtrArray *kernels, GError **error)
{
  return fw_fused_program_new_with_scopes (plan, kernels, NULL, error);
}

/* Forgets what prepare_runs decided: the node kernels change which values stay channels-last. */
static void
unprepare (FwFusedProgram *program)
{
  program->prepared = FALSE;
  g_clear_pointer (&program->step_uses, g_free);
  g_clear_pointer (&program->cl, g_free);
  for (guint i = 0; program->constants != NULL && i < program->graph->values->len; i++)
    g_clear_pointer (&program->constants[i], fw_array_unref);
  g_clear_pointer (&program->constants, g_free);
}

void
fw_fused_program_set_node_kernels (FwFusedProgram *program, GPtrArray *node_kernels)
{
  unprepare (program);
  g_clear_pointer (&program->node_kernels, g_hash_table_unref);
  if (node_kernels == NULL || node_kernels->len == 0)
    return;
  program->node_kernels = g_hash_table_new (NULL, NULL);
  for (guint i = 0; i < node_kernels->len; i++)
    {
      FwNodeKernel *k = g_ptr_array_index (node_kernels, i);
      g_hash_table_insert (program->node_kernels, (gpointer) k->node, k);
    }
}

void
fw_fused_program_free (FwFusedProgram *program)
{
  if (program == NULL)
    return;
  if (program->steps)
    g_array_unref (program->steps);
  g_clear_pointer (&program->bodies, g_hash_table_unref);
  g_clear_pointer (&program->node_kernels, g_hash_table_unref);
  if (program->folded != NULL)
    {
      g_hash_table_unref (program->folded);
      g_mutex_clear (&program->fold_lock);
    }
  g_free (program->foldable);
  if (program->idle != NULL)
    {
      unprepare (program);
      g_ptr_array_unref (program->idle);
      g_mutex_clear (&program->run_lock);
    }
  g_free (program);
}

/* One frame of the fused schedule: the main graph (skip_initializers: its inputs that are initializers are
 * not given) or a body, run by its If or Loop. */
/* The kernel of a step that can take or make channels-last arrays: a fused group's, or a single op's node
 * kernel (program->node_kernels) with run_nhwc; NULL for the rest. */
static const FwGroupKernel *
nhwc_kernel (FwFusedProgram *program, const Step *step)
{
  const FwNodeKernel *nk;

  if (step->node == NULL)
    return step->kernel->run_nhwc != NULL ? step->kernel : NULL;
  nk = program->node_kernels != NULL ? g_hash_table_lookup (program->node_kernels, step->node) : NULL;
  return nk != NULL && nk->kernel.run_nhwc != NULL ? &nk->kernel : NULL;
}

/* The values this run keeps channels-last (FwGroupKernel.run_nhwc): made by a kernel that can write them so
 * and read only by kernels that take them so, and not graph outputs. Everything else stays plain, so no
 * reference kernel or body sees the other layout; what the caller keeps it gets plain
 * (fw_exec_frame_finish), so verification checks the values of the run as it is. */
static guint8 *
channels_last_values (FwFusedProgram *program)
{
  FwGraph *graph = program->graph;
  guint8 *cl = g_new0 (guint8, graph->values->len + 1);

  /* FW_FUSED_PLAIN: every value plain, to measure or test what the layout saves. */
  if (g_getenv ("FW_FUSED_PLAIN") != NULL)
    return cl;
  for (guint s = 0; s < program->steps->len; s++)
    {
      const FwGroupKernel *k = nhwc_kernel (program, &g_array_index (program->steps, Step, s));
      FwValue *v = k != NULL && k->n_outputs == 1 ? k->outputs[0] : NULL;

      if (v != NULL && v->graph == graph && v->rank == 4 && !v->is_output)
        cl[v->index] = 1;
    }
  for (guint s = 0; s < program->steps->len; s++)
    {
      Step *step = &g_array_index (program->steps, Step, s);
      const FwGroupKernel *k = nhwc_kernel (program, step);
      guint n = step->node != NULL ? step->node->n_inputs : step->kernel->n_inputs;

      for (guint i = 0; i < n; i++)
        {
          FwValue *v = step->node != NULL ? step->node->inputs[i] : step->kernel->inputs[i];

          if (v != NULL && v->graph == graph && (k == NULL || i >= 32 || !(k->nhwc_inputs & (1u << i))))
            cl[v->index] = 0;
        }
      for (guint i = 0; step->node != NULL && step->node->implicit_inputs != NULL &&
                        i < step->node->implicit_inputs->len; i++)
        {
          FwValue *v = g_ptr_array_index (step->node->implicit_inputs, i);
          if (v->graph == graph)
            cl[v->index] = 0;
        }
    }
  return cl;
}

/* Whether a step reads or writes a value cl keeps channels-last: only then does it run in that form, so a
 * step with plain values runs as it would without the layout. */
static gboolean
touches_nhwc (FwValue *const *inputs, guint n_inputs, const FwValue *output, const FwGraph *graph, const guint8 *cl)
{
  if (output->graph == graph && cl[output->index])
    return TRUE;
  for (guint i = 0; i < n_inputs; i++)
    if (inputs[i] != NULL && inputs[i]->graph == graph && cl[inputs[i]->index])
      return TRUE;
  return FALSE;
}

/* A single op's step on its node kernel's run_nhwc: its inputs as they lie, its output in the layout cl
 * chose; checked against shape inference as the reference's results are. */
static gboolean
run_node_nhwc (FwExecContext *ctx, FwExecFrame *frame, guint *uses, const FwGroupKernel *k, const FwNode *node,
               const guint8 *cl, FwArray **scratch, GError **error)
{
  FwArray **in = scratch, **out = scratch + node->n_inputs + 1;
  gboolean done = TRUE;

  memset (scratch, 0, (node->n_inputs + node->n_outputs + 2) * sizeof (FwArray *));
  for (guint i = 0; i < node->n_inputs && done; i++)
    if (node->inputs[i] != NULL)
      done = (in[i] = fw_exec_frame_lookup (frame, node->inputs[i], error)) != NULL;
  if (done)
    done = k->run_nhwc (k->data, in, out, cl[node->outputs[0]->index], ctx->n_threads, error) &&
           fw_exec_check_outputs (node, out, ctx->golden, error);
  for (guint i = 0; i < node->n_inputs; i++)
    g_clear_pointer (&in[i], fw_array_unref);
  for (guint o = 0; o < node->n_outputs; o++)
    {
      if (done && node->outputs[o] != NULL)
        fw_exec_frame_store (frame, uses, node->outputs[o], out[o]);
      else
        g_clear_pointer (&out[o], fw_array_unref);
    }
  for (guint i = 0; done && i < node->n_inputs; i++)
    fw_exec_frame_release (frame, uses, node->inputs[i]);
  return done;
}

/* The array of an input whose storage kernel may write its output into (FwGroupKernel.inplace_inputs), as
 * a new reference for outputs[0], or NULL. Only where this step is the value's last reader and nothing but
 * the frame and in[j] holds the array: a view of it, a caller's input, a kept value or a graph output would
 * otherwise see the result written over it. */
static FwArray *
donated_output (const FwExecFrame *frame, const guint *uses, const FwGroupKernel *kernel, FwArray *const *in,
                gboolean out_nhwc)
{
  const FwValue *out = kernel->outputs[0];

  if (kernel->n_outputs != 1 || out->dtype != FW_DTYPE_FLOAT)
    return NULL;
  for (guint j = 0; j < kernel->n_inputs && j < 32; j++)
    {
      const FwValue *v = kernel->inputs[j];
      const FwArray *a = in[j];
      gboolean fits;

      if (!(kernel->inplace_inputs & (1u << j)) || v->graph != frame->graph || uses[v->index] != 1 ||
          frame->values[v->index] != a || !a->owned || a->base != NULL || a->borrowed != NULL ||
          a->nhwc != out_nhwc || !g_atomic_ref_count_compare ((gatomicrefcount *) &a->ref_count, 2) ||
          a->dtype != out->dtype || (gint) a->rank != out->rank)
        continue;
      fits = TRUE;
      for (gint d = 0; d < out->rank && fits; d++)
        fits = out->dims[d].value >= 0 && a->dims[d] == out->dims[d].value;
      for (guint k = 0; k < kernel->n_inputs && fits; k++)
        fits = k == j || (in[k] != a && (in[k] == NULL || in[k]->data != a->data));
      if (fits)
        return fw_array_ref ((FwArray *) a);
    }
  return NULL;
}

/* A foldable step (mark_foldable): its results from the program's cache, or run once and kept there. Under
 * the lock, so that runs of one program in parallel compute them once. The cached arrays are shared: a
 * kernel writes into an input only when the frame holds its one other reference (donated_output). */
static gboolean
run_folded (FwFusedProgram *program, FwExecContext *ctx, FwExecFrame *frame, guint *uses, const FwNode *node,
            FwArray **scratch, GError **error)
{
  gboolean cached = TRUE, ok = TRUE;

  g_mutex_lock (&program->fold_lock);
  for (guint o = 0; o < node->n_outputs; o++)
    if (node->outputs[o] != NULL && uses[node->outputs[o]->index] > 0)
      cached = cached && g_hash_table_contains (program->folded, node->outputs[o]);
  if (!cached)
    {
      ok = fw_exec_frame_run_node (ctx, frame, uses, node, scratch, error);
      for (guint o = 0; ok && o < node->n_outputs; o++)
        {
          const FwValue *v = node->outputs[o];
          if (v != NULL && frame->values[v->index] != NULL)
            g_hash_table_replace (program->folded, (gpointer) v, fw_array_ref (frame->values[v->index]));
        }
    }
  else
    {
      for (guint o = 0; o < node->n_outputs; o++)
        if (node->outputs[o] != NULL && uses[node->outputs[o]->index] > 0)
          fw_exec_frame_store (frame, uses, node->outputs[o],
                               fw_array_ref (g_hash_table_lookup (program->folded, node->outputs[o])));
      for (guint i = 0; i < node->n_inputs; i++)
        fw_exec_frame_release (frame, uses, node->inputs[i]);
    }
  g_mutex_unlock (&program->fold_lock);
  return ok;
}

/* What every run of the program reads and no run changes, decided on its first run (under run_lock). */
static void
prepare_runs (FwFusedProgram *program)
{
  FwGraph *graph = program->graph;
  guint n_values = graph->values->len;

  program->step_uses = g_new0 (guint, n_values + 1);
  program->constants = g_new0 (FwArray *, n_values + 1);
  program->scratch_len = 2;
  /* Uses on the fused schedule: a group's inner values are no one's concern but its kernel's. */
  for (guint s = 0; s < program->steps->len; s++)
    {
      Step *step = &g_array_index (program->steps, Step, s);
      guint n_in = step->node != NULL ? step->node->n_inputs : step->kernel->n_inputs;
      guint n_out = step->node != NULL ? step->node->n_outputs : step->kernel->n_outputs;

      program->scratch_len = MAX (program->scratch_len, n_in + n_out + 2);
      for (guint i = 0; i < n_in; i++)
        {
          FwValue *v = step->node != NULL ? step->node->inputs[i] : step->kernel->inputs[i];
          if (v != NULL && v->graph == graph)
            program->step_uses[v->index]++;
        }
      if (step->node != NULL && step->node->implicit_inputs != NULL)
        for (guint i = 0; i < step->node->implicit_inputs->len; i++)
          {
            FwValue *v = g_ptr_array_index (step->node->implicit_inputs, i);
            if (v->graph == graph)
              program->step_uses[v->index]++;
          }
    }
  /* A constant's array wraps its tensor's bytes: made once, handed to every run (take_state). One that
     cannot be made is left to the run's lookup, which says why. */
  for (guint i = 0; i < n_values; i++)
    {
      FwValue *v = g_ptr_array_index (graph->values, i);
      if (v->constant != NULL && program->step_uses[i] > 0)
        program->constants[i] = fw_array_new_from_tensor (v->constant, NULL);
    }
  program->cl = channels_last_values (program);
  program->prepared = TRUE;
}

/* A run's state: the program's decisions made if this is its first run, a state no other run holds, the
 * constants in place. Not an initializer that is a graph input the run is given (skip_initializers FALSE:
 * a body's), which the caller's array replaces. */
static RunState *
take_state (FwFusedProgram *program, gboolean skip_initializers)
{
  guint n_values = program->graph->values->len;
  RunState *st;

  g_mutex_lock (&program->run_lock);
  if (!program->prepared)
    prepare_runs (program);
  st = program->idle->len > 0 ? g_ptr_array_steal_index_fast (program->idle, program->idle->len - 1) : NULL;
  g_mutex_unlock (&program->run_lock);
  if (st == NULL)
    {
      st = g_new0 (RunState, 1);
      st->uses = g_new (guint, n_values + 1);
      st->values = g_new0 (FwArray *, n_values + 1);
      st->scratch = g_new0 (FwArray *, program->scratch_len);
    }
  memcpy (st->uses, program->step_uses, n_values * sizeof (guint));
  for (guint i = 0; i < n_values; i++)
    if (program->constants[i] != NULL)
      {
        const FwValue *v = g_ptr_array_index (program->graph->values, i);
        if (!v->is_input || (skip_initializers && v->is_initializer))
          st->values[i] = fw_array_ref (program->constants[i]);
      }
  return st;
}

static void
give_back_state (FwFusedProgram *program, RunState *st)
{
  for (guint i = 0; i < program->graph->values->len; i++)
    g_clear_pointer (&st->values[i], fw_array_unref);
  g_mutex_lock (&program->run_lock);
  g_ptr_array_add (program->idle, st);
  g_mutex_unlock (&program->run_lock);
}

/* One fused group's step: its kernel on the frame's values, in the layout cl says. */
static gboolean
run_kernel_step (FwExecContext *ctx, FwExecFrame *frame, guint *uses, const Step *step, const guint8 *cl,
                 FwArray **scratch, GError **error)
{
  const FwGroupKernel *kernel = step->kernel;
  FwArray **in = scratch, **out = scratch + kernel->n_inputs + 1;
  gboolean done = TRUE;

  memset (scratch, 0, (kernel->n_inputs + kernel->n_outputs + 2) * sizeof (FwArray *));
  for (guint i = 0; i < kernel->n_inputs && done; i++)
    done = (in[i] = fw_exec_frame_lookup (frame, kernel->inputs[i], error)) != NULL;
  if (done)
    {
      gboolean nhwc = kernel->run_nhwc != NULL &&
                      touches_nhwc (kernel->inputs, kernel->n_inputs, kernel->outputs[0], frame->graph, cl);
      gboolean out_nhwc = nhwc && cl[kernel->outputs[0]->index];

      if (kernel->inplace_inputs != 0)
        out[0] = donated_output (frame, uses, kernel, in, out_nhwc);
      done = nhwc ? kernel->run_nhwc (kernel->data, in, out, out_nhwc, ctx->n_threads, error)
                  : kernel->run (kernel->data, in, out, ctx->n_threads, error);
    }
  for (guint o = 0; done && o < kernel->n_outputs; o++)
    if (out[o] == NULL)
      {
        g_set_error (error, FW_ERROR, FW_ERROR_INTERNAL, _("the kernel did not produce “%s”"),
                     kernel->outputs[o]->name);
        done = FALSE;
      }
  for (guint i = 0; i < kernel->n_inputs; i++)
    g_clear_pointer (&in[i], fw_array_unref);
  if (!done)
    {
      for (guint o = 0; o < kernel->n_outputs; o++)
        g_clear_pointer (&out[o], fw_array_unref);
      if (step->scope != NULL)
        g_prefix_error (error, _("SuperKernel scope %s: "), step->scope->name);
      else
        g_prefix_error (error, _("candidate %u: "), kernel->candidate);
      return FALSE;
    }
  for (guint o = 0; o < kernel->n_outputs; o++)
    fw_exec_frame_store (frame, uses, kernel->outputs[o], out[o]);
  for (guint i = 0; i < kernel->n_inputs; i++)
    fw_exec_frame_release (frame, uses, kernel->inputs[i]);
  return TRUE;
}

static gboolean
run_program (FwFusedProgram *program, FwExecContext *ctx, FwArray *const *inputs, guint n_inputs,
             gboolean skip_initializers, FwArray **outputs, GHashTable *keep, GError **error)
{
  FwGraph *graph = program->graph;
  FwExecFrame frame = { graph, NULL, ctx->frame };
  RunState *st = take_state (program, skip_initializers);
  const guint8 *cl = program->cl;
  gboolean ok = FALSE;

  frame.values = st->values;
  fw_exec_frame_count_kept (&frame, st->uses, keep);
  if (!fw_exec_frame_bind_inputs (&frame, inputs, n_inputs, skip_initializers, error))
    goto out;
  ctx->frame = &frame;
  for (guint s = 0; s < program->steps->len; s++)
    {
      Step *step = &g_array_index (program->steps, Step, s);

      if (g_cancellable_set_error_if_cancelled (ctx->cancellable, error))
        goto out;
      /* The golden mode computes in wider types than the cache holds. (No foldable node has a kernel that
         writes channels-last: every one refuses a constant activation.) */
      if (step->node != NULL && program->foldable != NULL && program->foldable[s] && ctx->golden == FW_DTYPE_UNDEFINED)
        {
          if (!run_folded (program, ctx, &frame, st->uses, step->node, st->scratch, error))
            goto out;
          continue;
        }
      if (step->node != NULL)
        {
          const FwGroupKernel *nk = nhwc_kernel (program, step);

          if (nk != NULL && step->node->n_outputs == 1 && step->node->outputs[0] != NULL &&
                  touches_nhwc (step->node->inputs, step->node->n_inputs, step->node->outputs[0], graph, cl)
                ? !run_node_nhwc (ctx, &frame, st->uses, nk, step->node, cl, st->scratch, error)
                : !fw_exec_frame_run_node (ctx, &frame, st->uses, step->node, st->scratch, error))
            goto out;
          continue;
        }
      if (!run_kernel_step (ctx, &frame, st->uses, step, cl, st->scratch, error))
        goto out;
    }
  ok = fw_exec_frame_finish (&frame, outputs, keep, error);

out:
  ctx->frame = frame.parent;
  give_back_state (program, st);
  return ok;
}

static FwArray *
dequantize_through (FwExecContext *ctx, GHashTable *env, FwValue *v, GError **error)
{
  FwNode *dq = v->producer;
  g_autofree FwArray **in = g_new0 (FwArray *, dq->n_inputs + 1);
  g_autofree FwArray **out = g_new0 (FwArray *, dq->n_outputs + 1);
  gboolean ok = TRUE;

  for (guint i = 0; i < dq->n_inputs && ok; i++)
    {
      FwValue *x = dq->inputs[i];
      FwArray *a = x != NULL ? g_hash_table_lookup (env, x) : NULL;
      if (a != NULL)
        in[i] = fw_array_ref (a);
      else if (x != NULL && x->constant != NULL)
        ok = (in[i] = fw_array_new_from_tensor (x->constant, error)) != NULL;
    }
  ok = ok && fw_exec_run_node (ctx, dq, in, out, error);
  for (guint i = 0; i < dq->n_inputs; i++)
    g_clear_pointer (&in[i], fw_array_unref);
  for (guint o = 1; o < dq->n_outputs; o++)
    g_clear_pointer (&out[o], fw_array_unref);
  if (ok)
    g_hash_table_insert (env, v, fw_array_ref (out[0]));
  return ok ? out[0] : NULL;
}

gboolean
fw_fused_program_run (FwFusedProgram *program, FwExecContext *ctx, FwArray *const *inputs, guint n_inputs,
                      FwArray **outputs, GHashTable *keep, GError **error)
{
  GHashTable *bodies = program->bodies, *kept = keep, *node_kernels = ctx->node_kernels;
  gboolean ok;

  /* The bodies' programs, the values to keep and the node kernels reach the If and Loop kernels and the
     single ops through the context. */
  fw_exec_context_swap_run (ctx, &bodies, &kept);
  ctx->node_kernels = program->node_kernels;
  ok = run_program (program, ctx, inputs, n_inputs, TRUE, outputs, keep, error);
  ctx->node_kernels = node_kernels;
  fw_exec_context_swap_run (ctx, &bodies, &kept);
  return ok;
}

gboolean
fw_fused_program_run_body (FwFusedProgram *body, FwExecContext *ctx, FwArray *const *inputs, guint n_inputs,
                           FwArray **outputs, GError **error)
{
  return run_program (body, ctx, inputs, n_inputs, FALSE, outputs, ctx->keep, error);
}

gboolean
fw_group_run_reference (FwExecContext *ctx, const FwGroupKernel *kernel, GPtrArray *nodes, FwArray *const *inputs,
                        FwArray **outputs, GError **error)
{
  g_autoptr(GHashTable) env = g_hash_table_new_full (NULL, NULL, NULL, (GDestroyNotify) fw_array_unref);
  gboolean ok = TRUE;

  for (guint i = 0; i < kernel->n_inputs; i++)
    g_hash_table_insert (env, kernel->inputs[i], fw_array_ref (inputs[i]));
  for (guint n = 0; n < nodes->len && ok; n++)
    {
      FwNode *node = g_ptr_array_index (nodes, n);
      g_autofree FwArray **in = g_new0 (FwArray *, node->n_inputs + 1);
      g_autofree FwArray **out = g_new0 (FwArray *, node->n_outputs + 1);

      for (guint i = 0; i < node->n_inputs && ok; i++)
        {
          FwValue *v = node->inputs[i];
          FwArray *a;

          if (v == NULL)
            continue;
          a = g_hash_table_lookup (env, v);
          if (a != NULL)
            in[i] = fw_array_ref (a);
          else if (v->constant != NULL)
            {
              in[i] = fw_array_new_from_tensor (v->constant, error);
              ok = in[i] != NULL;
            }
          else if (v->producer != NULL && g_hash_table_contains (env, v->producer->inputs[0]) &&
                   reads_through (v->producer->inputs[0], v))
            {
              /* A shared DequantizeLinear an integer kernel reads through: computed here from its input. */
              in[i] = dequantize_through (ctx, env, v, error);
              ok = in[i] != NULL;
            }
          else
            {
              g_set_error (error, FW_ERROR, FW_ERROR_INTERNAL, _("value “%s” is not available to its group"), v->name);
              ok = FALSE;
            }
        }
      if (ok)
        ok = fw_exec_run_node (ctx, node, in, out, error);
      for (guint i = 0; i < node->n_inputs; i++)
        g_clear_pointer (&in[i], fw_array_unref);
      for (guint o = 0; ok && o < node->n_outputs; o++)
        if (node->outputs[o] != NULL)
          g_hash_table_replace (env, node->outputs[o], out[o]);
        else
          g_clear_pointer (&out[o], fw_array_unref);
    }
  for (guint o = 0; o < kernel->n_outputs; o++)
    {
      FwArray *a = ok ? g_hash_table_lookup (env, kernel->outputs[o]) : NULL;

      outputs[o] = a ? fw_array_ref (a) : NULL;
      if (ok && a == NULL)
        {
          g_set_error (error, FW_ERROR, FW_ERROR_INTERNAL, _("group output “%s” was not computed"),
                       kernel->outputs[o]->name);
          ok = FALSE;
        }
    }
  if (!ok)
    for (guint o = 0; o < kernel->n_outputs; o++)
      g_clear_pointer (&outputs[o], fw_array_unref);
  return ok;
}

void
fw_group_boundary (const FwCandidate *candidate, GPtrArray *inputs, GPtrArray *outputs)
{
  g_autoptr(GHashTable) inside = g_hash_table_new (NULL, NULL);
  g_autoptr(GHashTable) seen = g_hash_table_new (NULL, NULL);

  for (guint n = 0; n < candidate->nodes->len; n++)
    g_hash_table_add (inside, g_ptr_array_index (candidate->nodes, n));
  for (guint n = 0; n < candidate->nodes->len; n++)
    {
      FwNode *node = g_ptr_array_index (candidate->nodes, n);

      for (guint i = 0; i < node->n_inputs; i++)
        {
          FwValue *v = node->inputs[i];

          if (v == NULL || v->constant != NULL || (v->producer && g_hash_table_contains (inside, v->producer)) ||
              !g_hash_table_add (seen, v))
            continue;
          g_ptr_array_add (inputs, v);
        }
      for (guint o = 0; o < node->n_outputs; o++)
        {
          FwValue *v = node->outputs[o];
          gboolean outside;

          if (v == NULL)
            continue;
          outside = v->is_output;
          for (guint u = 0; u < v->n_uses && !outside; u++)
            outside = !g_hash_table_contains (inside, v->uses[u].node);
          if (outside)
            g_ptr_array_add (outputs, v);
        }
    }
}

typedef struct
{
  FwGroupKernel  kernel;
  GPtrArray     *in;
  GPtrArray     *out;
  GPtrArray     *nodes;
} ReferenceKernel;

static gboolean
run_reference_kernel (gpointer data, FwArray *const *inputs, FwArray **outputs, guint n_threads, GError **error)
{
  ReferenceKernel *rk = data;
  g_autoptr(FwExecContext) ctx = fw_exec_context_new (n_threads, NULL);

  return fw_group_run_reference (ctx, &rk->kernel, rk->nodes, inputs, outputs, error);
}

FwGroupKernel *
fw_group_kernel_new_reference (FwPlan *plan, guint candidate)
{
  FwCandidate *c = g_ptr_array_index (plan->candidates, candidate);
  ReferenceKernel *rk = g_new0 (ReferenceKernel, 1);

  rk->in = g_ptr_array_new ();
  rk->out = g_ptr_array_new ();
  rk->nodes = g_ptr_array_ref (c->nodes);
  fw_group_boundary (c, rk->in, rk->out);
  rk->kernel.candidate = candidate;
  rk->kernel.n_inputs = rk->in->len;
  rk->kernel.inputs = (FwValue **) rk->in->pdata;
  rk->kernel.n_outputs = rk->out->len;
  rk->kernel.outputs = (FwValue **) rk->out->pdata;
  rk->kernel.run = run_reference_kernel;
  rk->kernel.data = rk;
  return &rk->kernel;
}

void
fw_group_kernel_reference_free (FwGroupKernel *kernel)
{
  ReferenceKernel *rk = (ReferenceKernel *) kernel;

  if (kernel == NULL)
    return;
  g_ptr_array_unref (rk->in);
  g_ptr_array_unref (rk->out);
  g_ptr_array_unref (rk->nodes);
  g_free (rk);
}
