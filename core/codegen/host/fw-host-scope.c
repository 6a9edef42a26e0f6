/* fw-host-scope.c: a SuperKernel scope's host program (fw-host-scope.h): its sub-kernels generated as
 * file-local functions, its values placed in one arena, one entry that calls them in order. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "fw-error.h"
#include "fw-host-codegen-private.h"
#include "fw-host-dnnl.h"
#include "fw-host-scope.h"

static gint64
value_bytes (const FwValue *v)
{
  gint64 bytes = 0;

  if (!fw_dtype_bytes_for (v->dtype, fw_value_get_n_elements (v), &bytes))
    return 0;
  return bytes;
}

static void
candidate_free (gpointer data)
{
  FwCandidate *c = data;

  g_clear_pointer (&c->nodes, g_ptr_array_unref);
  g_clear_pointer (&c->spec, fw_kernel_spec_free);
  g_free (c->kind);
  g_free (c->pattern);
  g_free (c);
}

static void
host_scope_free (gpointer data)
{
  FwHostScope *s = data;

  g_free (s->name);
  g_array_unref (s->members);
  g_ptr_array_unref (s->units);
  g_ptr_array_unref (s->inputs);
  g_ptr_array_unref (s->outputs);
  g_array_unref (s->buffers);
  g_free (s->end_message);
  g_clear_pointer (&s->program, fw_superkernel_free);
  g_free (s->error);
  g_free (s->kernel.kernel.inputs);
  g_free (s->kernel.kernel.outputs);
  g_ptr_array_unref (s->own);
  g_hash_table_unref (s->alias);
  free (s->arena);
  g_mutex_clear (&s->lock);
  g_free (s);
}

static void
cut_free (gpointer data)
{
  FwHostScopeCut *c = data;

  g_free (c->message);
  g_free (c);
}

void
fw_host_scopes_free (FwHostScopes *scopes)
{
  if (scopes == NULL)
    return;
  g_ptr_array_unref (scopes->scopes);
  g_ptr_array_unref (scopes->cuts);
  g_free (scopes);
}

const FwKernelSource *
fw_host_scope_get_source (FwHostScope *scope)
{
  return scope->program ? fw_superkernel_get_kernel_source (scope->program) : NULL;
}

/* ---- sub-kernels ---- */

static gboolean
is_producer (const FwNode *node)
{
  return strcmp (node->op_type, "MatMul") == 0 || strcmp (node->op_type, "Gemm") == 0 ||
         strcmp (node->op_type, "Conv") == 0;
}

/* Ops whose output is their first input's bytes under another shape: the reference interpreter shares the
 * storage, and so does the program (no sub-kernel; a copy only when the view leaves the program). */
static gboolean
is_view (const FwNode *node)
{
  static const char *const views[] = { "Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity" };

  if (node->n_inputs < 1 || node->inputs[0] == NULL || node->n_outputs != 1 || node->outputs[0] == NULL ||
      node->outputs[0]->dtype != node->inputs[0]->dtype || (node->domain != NULL && node->domain[0] != '\0'))
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (views); i++)
    if (strcmp (node->op_type, views[i]) == 0)
      return TRUE;
  return FALSE;
}

static const FwValue *
resolve (FwHostScope *s, const FwValue *v)
{
  const FwValue *to;

  while ((to = g_hash_table_lookup (s->alias, v)) != NULL)
    v = to;
  return v;
}

/* The values a sub-kernel reads and writes: its unit's, or a view's one input and one output. */
static guint
unit_n (FwHostScope *s, guint u, gboolean outputs)
{
  FwSuperKernel *unit = g_ptr_array_index (s->units, u);

  if (unit == NULL)
    return 1;
  return outputs ? unit->outputs->len : unit->inputs->len;
}

static FwValue *
unit_value (FwHostScope *s, guint u, gboolean outputs, guint i)
{
  FwSuperKernel *unit = g_ptr_array_index (s->units, u);
  FwNode *node = g_array_index (s->members, FwScopeMember, u).node;

  if (unit == NULL)
    return outputs ? node->outputs[0] : node->inputs[0];
  return g_ptr_array_index (outputs ? unit->outputs : unit->inputs, i);
}

/* A single op as a group of one, owned by own; NULL with the generator's refusal. */
static FwSuperKernel *
single_op_unit (FwPlan *plan, FwNode *node, const char *name, GPtrArray *own, GError **error)
{
  FwCandidate *c = g_new0 (FwCandidate, 1);
  FwSuperKernel *unit;

  c->index = G_MAXUINT;
  c->kind = g_strdup ("single_op");
  c->pattern = g_strdup ("single_op");
  c->nodes = g_ptr_array_new ();
  g_ptr_array_add (c->nodes, node);
  c->root = is_producer (node) ? node : NULL;
  c->spec = fw_plan_spec_for_nodes (plan, c->nodes, c->root);
  c->status = FW_CANDIDATE_ACCEPTED;
  g_ptr_array_add (own, c);
  if (c->spec == NULL)
    {
      g_set_error (error, FW_ERROR, FW_ERROR_UNSUPPORTED, _("host SuperKernel: the planner has no kernel spec for %s"),
                   node->op_type);
      return NULL;
    }
  unit = fw_superkernel_generate_unit (plan, c, name, error);
  return unit;
}

/* ---- boundary, arena, interpreter peak ---- */

static gboolean
used_outside (const FwValue *v, GHashTable *nodes)
{
  if (v->is_output)
    return TRUE;
  for (guint u = 0; u < v->n_uses; u++)
    if (!g_hash_table_contains (nodes, v->uses[u].node))
      return TRUE;
  return FALSE;
}

static void
member_nodes (FwPlan *plan, const FwScopeMember *m, GPtrArray *out)
{
  if (m->node != NULL)
    g_ptr_array_add (out, m->node);
  else
    g_ptr_array_extend (out, ((FwCandidate *) g_ptr_array_index (plan->candidates, m->candidate))->nodes, NULL,
                        NULL);
}

static void interpreter_peak (FwHostScope *s, GPtrArray *all, GHashTable *nodes);

/* Values between the sub-kernels: inputs, outputs and arena buffers, placed. */
static void
plan_values (FwPlan *plan, FwHostScope *s)
{
  g_autoptr(GHashTable) nodes = g_hash_table_new (NULL, NULL);
  g_autoptr(GHashTable) written = g_hash_table_new (NULL, NULL);   /* FwValue* → unit + 1 */
  g_autoptr(GHashTable) read = g_hash_table_new (NULL, NULL);      /* scope inputs seen */
  g_autoptr(GPtrArray) all = g_ptr_array_new ();

  for (guint m = 0; m < s->members->len; m++)
    member_nodes (plan, &g_array_index (s->members, FwScopeMember, m), all);
  for (guint i = 0; i < all->len; i++)
    g_hash_table_add (nodes, g_ptr_array_index (all, i));
  for (guint u = 0; u < s->units->len; u++)
    {
      gboolean view = g_ptr_array_index (s->units, u) == NULL;

      for (guint i = 0; i < unit_n (s, u, FALSE); i++)
        {
          const FwValue *v = resolve (s, unit_value (s, u, FALSE, i));
          guint w = GPOINTER_TO_UINT (g_hash_table_lookup (written, v));

          if (w == 0 && g_hash_table_add (read, (gpointer) v))
            g_ptr_array_add (s->inputs, (gpointer) v);
          for (guint b = 0; w != 0 && b < s->buffers->len; b++)
            if (g_array_index (s->buffers, FwArenaBuffer, b).value == v)
              g_array_index (s->buffers, FwArenaBuffer, b).last = u;
        }
      for (guint o = 0; o < unit_n (s, u, TRUE); o++)
        {
          FwValue *v = unit_value (s, u, TRUE, o);

          if (used_outside (v, nodes))
            {
              /* A view that leaves the program is copied into its output. */
              g_hash_table_insert (written, v, GUINT_TO_POINTER (u + 1));
              g_ptr_array_add (s->outputs, v);
              s->output_bytes += value_bytes (v);
            }
          else if (view)
            g_hash_table_insert (s->alias, v, (gpointer) unit_value (s, u, FALSE, 0));
          else
            {
              gint64 bytes = value_bytes (v);
              FwArenaBuffer b = { v, u, u, 0, 0 };

              g_hash_table_insert (written, v, GUINT_TO_POINTER (u + 1));
              b.bytes = MAX ((bytes + FW_ARENA_ALIGN - 1) / FW_ARENA_ALIGN * FW_ARENA_ALIGN, FW_ARENA_ALIGN);
              g_array_append_val (s->buffers, b);
            }
        }
    }
  s->arena_bytes = fw_arena_place ((FwArenaBuffer *) s->buffers->data, s->buffers->len);

  interpreter_peak (s, all, nodes);
}

/* One value of the interpreter's run done with: its storage is freed when no value sharing it (a view of
 * it) is left. */
static void
drop (GHashTable *root_of, GHashTable *holders, const FwValue *v, gint64 *live)
{
  const FwValue *root = g_hash_table_lookup (root_of, v);
  guint n;

  if (root == NULL)
    return;   /* made outside the scope */
  n = GPOINTER_TO_UINT (g_hash_table_lookup (holders, root)) - 1;
  g_hash_table_insert (holders, (gpointer) root, GUINT_TO_POINTER (n));
  if (n == 0)
    *live -= value_bytes (root);
}

/* The reference interpreter on the same nodes: each output allocated when its node runs (a view shares its
 * input's storage), each value done with after its last use inside the scope unless it is read after it. */
static void
interpreter_peak (FwHostScope *s, GPtrArray *all, GHashTable *nodes)
{
  g_autoptr(GHashTable) uses = g_hash_table_new (NULL, NULL);
  g_autoptr(GHashTable) root_of = g_hash_table_new (NULL, NULL);
  g_autoptr(GHashTable) holders = g_hash_table_new (NULL, NULL);
  gint64 live = 0;

  for (guint i = 0; i < all->len; i++)
    {
      FwNode *node = g_ptr_array_index (all, i);

      for (guint k = 0; k < node->n_inputs; k++)
        if (node->inputs[k] != NULL)
          g_hash_table_insert (uses, node->inputs[k],
                               GUINT_TO_POINTER (GPOINTER_TO_UINT (g_hash_table_lookup (uses, node->inputs[k])) + 1));
    }
  for (guint i = 0; i < all->len; i++)
    {
      FwNode *node = g_ptr_array_index (all, i);

      for (guint o = 0; o < node->n_outputs; o++)
        {
          FwValue *v = node->outputs[o];
          const FwValue *root = v;

          if (v == NULL || v->constant != NULL)
            continue;
          if (is_view (node))
            root = g_hash_table_lookup (root_of, node->inputs[0]);
          if (root == NULL)
            continue;   /* a view of a value from outside: no storage of the scope's */
          if (root == v)
            live += value_bytes (v);
          g_hash_table_insert (root_of, v, (gpointer) root);
          g_hash_table_insert (holders, (gpointer) root,
                               GUINT_TO_POINTER (GPOINTER_TO_UINT (g_hash_table_lookup (holders, root)) + 1));
        }
      s->interpreter_peak_bytes = MAX (s->interpreter_peak_bytes, live);
      for (guint k = 0; k < node->n_inputs; k++)
        {
          FwValue *v = node->inputs[k];
          guint left;

          if (v == NULL || !g_hash_table_contains (root_of, v))
            continue;
          left = GPOINTER_TO_UINT (g_hash_table_lookup (uses, v)) - 1;
          g_hash_table_insert (uses, v, GUINT_TO_POINTER (left));
          if (left == 0 && !used_outside (v, nodes))
            drop (root_of, holders, v, &live);
        }
      for (guint o = 0; o < node->n_outputs; o++)
        {
          FwValue *v = node->outputs[o];

          if (v != NULL && g_hash_table_contains (root_of, v) && !g_hash_table_contains (uses, v) &&
              !used_outside (v, nodes))
            drop (root_of, holders, v, &live);
        }
    }
}

/* ---- the program ---- */

/* Where the program finds v before sub-kernel u runs or after it wrote it. */
static void
append_pointer (FwHostScope *s, GString *src, const FwValue *v)
{
  guint at;

  if (!g_ptr_array_find (s->outputs, v, NULL))
    v = resolve (s, v);
  if (g_ptr_array_find (s->outputs, v, &at))
    {
      g_string_append_printf (src, "outs[%u]", at);
      return;
    }
  for (guint b = 0; b < s->buffers->len; b++)
    if (g_array_index (s->buffers, FwArenaBuffer, b).value == v)
      {
        g_string_append_printf (src, "arena + %" G_GINT64_FORMAT, g_array_index (s->buffers, FwArenaBuffer, b).offset);
        return;
      }
  g_ptr_array_find (s->inputs, v, &at);
  g_string_append_printf (src, "ins[%u]", at);
}

static void
append_comment (FwHostScope *s, FwPlan *plan, GString *src)
{
  g_string_append (src, "/* Fusion Workbench host SuperKernel scope program, generated: do not edit.\n * scope ");
  fw_hc_append_comment_text (src, s->name);
  g_string_append_printf (src, ": %u sub-kernels, arena %" G_GINT64_FORMAT " bytes\n", s->members->len,
                          s->arena_bytes);
  for (guint m = 0; m < s->members->len; m++)
    {
      const FwScopeMember *mb = &g_array_index (s->members, FwScopeMember, m);
      FwNode *first = mb->node ? mb->node
                               : g_ptr_array_index (((FwCandidate *) g_ptr_array_index (plan->candidates,
                                                                                         mb->candidate))->nodes, 0);

      if (mb->node != NULL)
        g_string_append_printf (src, " * kernel %u: single op ", m);
      else
        g_string_append_printf (src, " * kernel %u: group %u from ", m, mb->candidate);
      fw_hc_append_comment_text (src, first->op_type);
      g_string_append (src, " \"");
      fw_hc_append_comment_text (src, first->name);
      g_string_append (src, "\"\n");
    }
  for (guint b = 0; b < s->buffers->len; b++)
    {
      const FwArenaBuffer *a = &g_array_index (s->buffers, FwArenaBuffer, b);

      g_string_append_printf (src, " * arena +%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT " bytes, kernels %u-%u: \"",
                              a->offset, a->bytes, a->first, a->last);
      fw_hc_append_comment_text (src, a->value->name);
      g_string_append (src, "\"\n");
    }
  g_string_append (src, " * The arena is the last pointer after the outputs. */\n");
}

/* A view's statement: nothing, or the copy of its bytes into the program's output it is. */
static void
append_view (FwHostScope *s, GString *src, guint u, const char *indent)
{
  FwNode *node = g_array_index (s->members, FwScopeMember, u).node;

  if (!g_ptr_array_find (s->outputs, node->outputs[0], NULL))
    return;
  g_string_append_printf (src, "%smemcpy (", indent);
  append_pointer (s, src, node->outputs[0]);
  g_string_append (src, ", ");
  append_pointer (s, src, node->inputs[0]);
  g_string_append_printf (src, ", %" G_GINT64_FORMAT ");\n", value_bytes (node->outputs[0]));
}

/* Sub-kernel u's call with its own primitive; on failure, `fail` (a statement). A team sub-kernel finds its
 * row scratch after its outputs. */
static void
append_call (FwHostScope *s, GString *src, guint u, const char *in, const char *fail)
{
  FwSuperKernel *unit = g_ptr_array_index (s->units, u);

  g_string_append_printf (src, "%s{\n%s  const void *i[%u] = { ", in, in, unit->inputs->len + 1);
  for (guint i = 0; i < unit->inputs->len; i++)
    {
      append_pointer (s, src, g_ptr_array_index (unit->inputs, i));
      g_string_append (src, ", ");
    }
  g_string_append_printf (src, "0 };\n%s  void *o[%u] = { ", in, unit->outputs->len + 1);
  for (guint o = 0; o < unit->outputs->len; o++)
    {
      append_pointer (s, src, g_ptr_array_index (unit->outputs, o));
      g_string_append (src, ", ");
    }
  g_string_append_printf (src, "%s };\n%s  fw_sk_runtime r = *rt;\n\n%s  r.producer = prims != NULL ? prims[%u] : NULL;\n"
                          "%s  r.layout = 0;\n"
                          "%s  if (%s (&r, i, o, nt) != 0)\n%s    %s\n%s}\n",
                          unit->team ? "scr" : "0", in, in, u, in, in, unit->unit_name, in, fail, in);
}

/* Team sub-kernels [u, end): one OpenMP team runs them all, each one's loops shared by its threads, so the
 * fork and join are paid once (FwSuperKernel.team). Every thread calls every sub-kernel, and takes the same
 * path through each (a failure is the team's alike), so all meet the same barriers. TRUE when it opens a
 * team (some sub-kernel wants more than one thread). */
static gboolean
append_team (FwHostScope *s, GString *src, guint u, guint end)
{
  gint64 scratch = 0;
  gboolean wide = FALSE;

  for (guint k = u; k < end; k++)
    {
      FwSuperKernel *unit = g_ptr_array_index (s->units, k);

      if (unit != NULL)
        {
          scratch = MAX (scratch, unit->team_scratch_bytes);
          wide |= unit->team_wide;
        }
    }
  /* No sub-kernel wants a second thread: no team at all, the work-shared loops run on the calling thread. */
  g_string_append_printf (src, "  {\n    int fail = 0;\n%s    {\n", wide ? "#pragma omp parallel num_threads(nt)\n" : "");
  if (scratch > 0)
    g_string_append_printf (src, "      void *scr = malloc (%" G_GINT64_FORMAT ");\n      int f;\n\n"
                            "      if (scr == NULL)\n      {\n#pragma omp atomic write\n        fail = 1;\n      }\n"
                            "#pragma omp barrier\n#pragma omp atomic read\n      f = fail;\n", scratch);
  else
    g_string_append (src, "      void *scr = NULL;\n      int f = 0;\n\n");
  for (guint k = u; k < end; k++)
    {
      FwNode *node = g_array_index (s->members, FwScopeMember, k).node;

      if (g_ptr_array_index (s->units, k) == NULL && !g_ptr_array_find (s->outputs, node->outputs[0], NULL))
        continue;
      g_string_append (src, "      if (!f)\n");
      if (g_ptr_array_index (s->units, k) != NULL)
        {
          append_call (s, src, k, "      ", "f = 1;");
          continue;
        }
      /* One thread copies a view leaving the program; the others wait, as a later sub-kernel may read it. */
      g_string_append (src, "      {\n#pragma omp single\n        {\n");
      append_view (s, src, k, "          ");
      g_string_append (src, "        }\n      }\n");
    }
  g_string_append (src, "      if (f)\n      {\n#pragma omp atomic write\n        fail = 1;\n      }\n"
                        "      free (scr);\n    }\n    if (fail)\n      return 1;\n  }\n");
  return wide;
}

gboolean
fw_host_scope_generate (FwHostScope *s, gboolean check, GError **error)
{
  FwPlan *plan = s->program->plan;
  GString *src;
  gboolean half = FALSE;

  if (check && !fw_arena_check ((const FwArenaBuffer *) s->buffers->data, s->buffers->len, s->arena_bytes, error))
    return FALSE;
  for (guint u = 0; u < s->units->len; u++)
    half |= g_ptr_array_index (s->units, u) != NULL && ((FwSuperKernel *) g_ptr_array_index (s->units, u))->half;
  src = g_string_new (NULL);
  append_comment (s, plan, src);
  fw_hc_append_prelude (src, half);
  for (guint u = 0; u < s->units->len; u++)
    if (g_ptr_array_index (s->units, u) != NULL)
      {
        g_string_append (src, ((FwSuperKernel *) g_ptr_array_index (s->units, u))->unit);
        g_string_append_c (src, '\n');
      }
  s->n_teams = 0;
  g_string_append (src, "int\nfw_sk_entry (const fw_sk_runtime *rt, const void *const *ins, void *const *outs, int nt)\n"
                        "{\n");
  g_string_append_printf (src, "  unsigned char *const arena = (unsigned char *) outs[%u];\n"
                          "  /* The runtime's producer is the table of the sub-kernels' primitives. */\n"
                          "  void *const *const prims = (void *const *) rt->producer;\n\n  (void) arena;\n"
                          "  (void) ins;\n  (void) prims;\n", s->outputs->len);
  for (guint u = 0; u < s->units->len;)
    {
      guint end = u;

      /* A run of team sub-kernels (views between them join it): one parallel region for all of them. */
      while (end < s->units->len && (g_ptr_array_index (s->units, end) == NULL ||
                                     ((FwSuperKernel *) g_ptr_array_index (s->units, end))->team))
        end++;
      while (end > u && g_ptr_array_index (s->units, end - 1) == NULL)
        end--;
      if (end > u)
        {
          s->n_teams += append_team (s, src, u, end);
          u = end;
          continue;
        }
      if (g_ptr_array_index (s->units, u) == NULL)
        append_view (s, src, u, "  ");
      else
        append_call (s, src, u, "  ", "return 1;");
      u++;
    }
  g_string_append (src, "  return 0;\n}\n");
  if (s->program->kernel_source != NULL)
    fw_kernel_source_free (s->program->kernel_source);
  s->program->kernel_source = fw_kernel_source_new ("host", s->name);
  fw_kernel_source_take_file (s->program->kernel_source, g_strdup ("kernel.c"), g_string_free (src, FALSE));
  s->program->source = fw_kernel_source_get_main (s->program->kernel_source);
  for (guint i = 0; i < s->inputs->len; i++)
    fw_kernel_source_add_input (s->program->kernel_source, g_ptr_array_index (s->inputs, i));
  for (guint o = 0; o < s->outputs->len; o++)
    fw_kernel_source_add_output (s->program->kernel_source, g_ptr_array_index (s->outputs, o));
  return TRUE;
}

static gboolean
run_scope (gpointer data, FwArray *const *inputs, FwArray **outputs, guint n_threads, GError **error)
{
  FwHostScope *s = data;
  gboolean ok;

  /* One arena per program: calls of the same scope take turns. */
  g_mutex_lock (&s->lock);
  ok = fw_superkernel_run_arena (s->program, inputs, outputs, s->arena, n_threads, error);
  g_mutex_unlock (&s->lock);
  return ok;
}

/* A program over the members gathered so far, when there are two or more; they are taken either way. */
static void
flush (FwPlan *plan, FwHostScopes *out, FwHostScope **open, const FwSkScope *sk_scope, guint parts_total,
       gboolean cut)
{
  FwHostScope *s = *open;
  FwCandidate *own;

  *open = NULL;
  if (s == NULL)
    return;
  if (s->members->len < 2)
    {
      host_scope_free (s);   /* one kernel is its own launch already */
      return;
    }
  own = g_new0 (FwCandidate, 1);
  own->index = s->sk_scope;
  own->kind = g_strdup ("superkernel_scope");
  own->pattern = g_strdup ("superkernel_scope");
  g_ptr_array_add (s->own, own);
  s->program = g_new0 (FwSuperKernel, 1);
  s->program->plan = plan;
  s->program->candidate = own;
  s->program->inputs = g_ptr_array_new ();
  s->program->outputs = g_ptr_array_new ();
  plan_values (plan, s);
  g_ptr_array_extend (s->program->inputs, s->inputs, NULL, NULL);
  g_ptr_array_extend (s->program->outputs, s->outputs, NULL, NULL);
  if (cut || s->end_code != NULL)
    {
      g_autofree char *old = s->name;
      s->name = g_strdup_printf ("%s.%u", sk_scope->name, parts_total + 1);
    }
  fw_host_scope_generate (s, TRUE, NULL);
  s->kernel.name = s->name;
  s->kernel.n_members = s->members->len;
  s->kernel.members = (const FwScopeMember *) s->members->data;
  s->kernel.kernel.candidate = G_MAXUINT;
  s->kernel.kernel.n_inputs = s->inputs->len;
  s->kernel.kernel.inputs = g_memdup2 (s->inputs->pdata, sizeof (gpointer) * MAX (s->inputs->len, 1));
  s->kernel.kernel.n_outputs = s->outputs->len;
  s->kernel.kernel.outputs = g_memdup2 (s->outputs->pdata, sizeof (gpointer) * MAX (s->outputs->len, 1));
  s->kernel.kernel.run = run_scope;
  s->kernel.kernel.data = s;
  g_ptr_array_add (out->scopes, s);
}

static FwHostScope *
open_scope (const FwSkScope *sk_scope, guint index, guint first_kernel)
{
  FwHostScope *s = g_new0 (FwHostScope, 1);

  s->name = g_strdup (sk_scope->name);
  s->sk_scope = index;
  s->first_kernel = first_kernel;
  s->members = g_array_new (FALSE, FALSE, sizeof (FwScopeMember));
  s->units = g_ptr_array_new_with_free_func ((GDestroyNotify) fw_superkernel_free);
  s->inputs = g_ptr_array_new ();
  s->outputs = g_ptr_array_new ();
  s->buffers = g_array_new (FALSE, FALSE, sizeof (FwArenaBuffer));
  s->own = g_ptr_array_new_with_free_func (candidate_free);
  s->alias = g_hash_table_new (NULL, NULL);
  g_mutex_init (&s->lock);
  return s;
}

/* Whether one of the program's members so far makes v. */
static gboolean
made_inside (FwHostScope *s, const FwValue *v)
{
  for (guint u = 0; u < s->members->len; u++)
    for (guint o = 0; o < unit_n (s, u, TRUE); o++)
      if (unit_value (s, u, TRUE, o) == v)
        return TRUE;
  return FALSE;
}

/* A Conv root the plan launches apart (the vendor's operator, then the epilogue): the group's own code
 * computes both, so the host has one sub-kernel for the two. */
static gboolean
root_of_next (FwPlan *plan, const FwSkScope *sk_scope, guint k)
{
  const FwSkKernel *kernel = &g_array_index (sk_scope->kernels, FwSkKernel, k), *next;

  if (kernel->candidate != G_MAXUINT || k + 1 >= sk_scope->kernels->len)
    return FALSE;
  next = &g_array_index (sk_scope->kernels, FwSkKernel, k + 1);
  return next->candidate != G_MAXUINT &&
         g_ptr_array_find (((FwCandidate *) g_ptr_array_index (plan->candidates, next->candidate))->nodes,
                           kernel->node, NULL);
}

static void
build_scope (FwPlan *plan, const FwSkScope *sk_scope, guint index, FwHostScopes *out)
{
  FwHostScope *open = NULL;
  guint parts = 0, before;
  gboolean cut_any = FALSE;

  for (guint k = 0; k < sk_scope->kernels->len; k++)
    {
      const FwSkKernel *kernel = &g_array_index (sk_scope->kernels, FwSkKernel, k);
      g_autoptr(GError) error = NULL;
      g_autofree char *name = NULL;
      FwScopeMember member = { kernel->candidate, kernel->candidate == G_MAXUINT ? kernel->node : NULL };
      FwSuperKernel *unit;

      if (open == NULL)
        open = open_scope (sk_scope, index, k);
      open->n_kernels++;
      if (root_of_next (plan, sk_scope, k))
        continue;
      if (member.node != NULL && is_view (member.node) && !made_inside (open, member.node->inputs[0]))
        {
          /* A view of a value from before the program (a weight's Identity): nothing of the program's, and
             the executor runs it before the program; in it, a copy of the weight per call. */
          open->n_kernels--;
          continue;
        }
      if (member.node != NULL && is_view (member.node))
        {
          g_array_append_val (open->members, member);
          g_ptr_array_add (open->units, NULL);
          continue;
        }
      name = g_strdup_printf ("fw_k%u", open->members->len);
      unit = member.node != NULL ? single_op_unit (plan, member.node, name, open->own, &error)
                                 : fw_superkernel_generate_unit (plan, g_ptr_array_index (plan->candidates,
                                                                                          member.candidate),
                                                                 name, &error);
      if (unit == NULL)
        {
          FwHostScopeCut *cut = g_new0 (FwHostScopeCut, 1);

          cut->sk_scope = index;
          cut->kernel = k;
          cut->node = kernel->node;
          cut->message = g_strdup (error->message);
          g_ptr_array_add (out->cuts, cut);
          open->n_kernels--;
          open->end_code = FW_SK_HOST_CODE_NAME;
          /* TRANSLATORS: node name, op type, the generator's reason */
          open->end_message = g_strdup_printf (_("%s (%s) has no host code: %s"), kernel->node->name,
                                               kernel->node->op_type, error->message);
          before = out->scopes->len;
          flush (plan, out, &open, sk_scope, parts, TRUE);
          parts += out->scopes->len > before;
          cut_any = TRUE;
          continue;
        }
      g_array_append_val (open->members, member);
      g_ptr_array_add (open->units, unit);
    }
  flush (plan, out, &open, sk_scope, parts, cut_any);
}

FwHostScopes *
fw_host_scopes_build (FwPlan *plan, const FwSkPlan *sk)
{
  FwHostScopes *out = g_new0 (FwHostScopes, 1);

  out->plan = plan;
  out->scopes = g_ptr_array_new_with_free_func (host_scope_free);
  out->cuts = g_ptr_array_new_with_free_func (cut_free);
  for (guint i = 0; i < sk->scopes->len; i++)
    build_scope (plan, g_ptr_array_index (sk->scopes, i), i, out);
  return out;
}

gboolean
fw_host_scopes_compile (FwHostScopes *scopes, FwHostToolchain *toolchain, GCancellable *cancellable,
                        GError **error)
{
  for (guint i = 0; i < scopes->scopes->len; i++)
    {
      FwHostScope *s = g_ptr_array_index (scopes->scopes, i);
      g_autoptr(GError) local = NULL;

      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        return FALSE;
      g_clear_pointer (&s->error, g_free);
      s->compiled = FALSE;
      if (!fw_superkernel_compile (s->program, toolchain, &local))
        {
          s->error = g_strdup (local->message);
          continue;
        }
      /* Each sub-kernel's primitive, prepared as a kernel of its own is when it is compiled. */
      g_clear_pointer (&s->program->producer_table, g_free);
      s->program->producer_table = g_new0 (gpointer, MAX (s->units->len, 1));
      for (guint u = 0; u < s->units->len; u++)
        {
          FwSuperKernel *unit = g_ptr_array_index (s->units, u);

          if (unit != NULL && unit->dnnl != NULL)
            {
              fw_dnnl_prim_prepare (unit->dnnl, (int) g_get_num_processors ());
              s->program->producer_table[u] = unit->dnnl;
            }
        }
      if (s->arena == NULL && posix_memalign (&s->arena, FW_ARENA_ALIGN, (gsize) MAX (s->arena_bytes, 1)) != 0)
        {
          s->arena = NULL;
          s->error = g_strdup (_("no memory for the scope's arena"));
          continue;
        }
      s->compiled = TRUE;
    }
  return TRUE;
}

GPtrArray *
fw_host_scopes_kernels (FwHostScopes *scopes)
{
  GPtrArray *kernels = g_ptr_array_new ();

  for (guint i = 0; i < scopes->scopes->len; i++)
    {
      FwHostScope *s = g_ptr_array_index (scopes->scopes, i);

      if (s->compiled)
        g_ptr_array_add (kernels, &s->kernel);
    }
  return kernels;
}
