/* fw-test-op.h: what the reference-kernel tests of tests/core/test-exec-{tensor,resize,control}.c share:
 * arrays from literals, a tolerance check, and one node built into a model, inferred, then run. The helpers
 * are static inline so each test uses the ones it needs. */
#pragma once

#include <math.h>
#include <string.h>

#include "fw-error.h"
#include "fw-test-models.h"
#include "exec/fw-exec.h"
#include "graph/fw-graph-private.h"

#define DIMS(...) ((const gint64[]) { __VA_ARGS__ })
#define VALS(...) ((const double[]) { __VA_ARGS__ })

static inline FwArray *
mk (FwDType dtype, guint rank, const gint64 *dims, const double *values)
{
  g_autoptr(GError) error = NULL;
  FwArray *a = fw_array_new (dtype, rank, dims, &error);

  g_assert_no_error (error);
  for (gint64 i = 0; i < a->n_elements; i++)
    fw_array_set_double (a, i, values ? values[i] : (double) i);
  return a;
}

static inline FwArray *
ints (guint n, const double *values)
{
  gint64 d = n;
  return mk (FW_DTYPE_INT64, 1, &d, values);
}

static inline FwArray *
scalar_i (gint64 v)
{
  double d = (double) v;
  return mk (FW_DTYPE_INT64, 0, NULL, &d);
}

static inline void
check (const FwArray *a, guint rank, const gint64 *dims, const double *values)
{
  g_autofree char *got = fw_array_format_shape (a);

  if (a->rank != rank || (rank > 0 && memcmp (a->dims, dims, rank * sizeof (gint64)) != 0))
    g_error ("shape %s", got);
  for (gint64 i = 0; values != NULL && i < a->n_elements; i++)
    {
      double v = fw_array_get_double (a, i);
      if (fabs (v - values[i]) > 1e-5 * MAX (1.0, fabs (values[i])))
        g_error ("element %" G_GINT64_FORMAT " is %.9g, expected %.9g", i, v, values[i]);
    }
}

/* ---- one node built into a model, inferred, then run on arrays ---- */

typedef struct
{
  FwModel   *model;
  FwGraph   *g;
  GPtrArray *names;
  GPtrArray *arrays;
  FwNode    *node;
  const char *op;
  gint64     opset;
  guint      n_out;
  FwArray   *out[8];
} Op;

static inline Op *
op_new (gint64 opset, const char *op_type, guint n_out)
{
  Op *c = g_new0 (Op, 1);

  c->model = fw_test_model_new (opset);
  c->g = fw_model_get_graph (c->model);
  c->names = g_ptr_array_new_with_free_func (g_free);
  c->arrays = g_ptr_array_new ();
  c->op = op_type;
  c->opset = opset;
  c->n_out = n_out;
  return c;
}

static inline void
op_free (Op *c)
{
  for (guint i = 0; i < c->n_out; i++)
    g_clear_pointer (&c->out[i], fw_array_unref);
  for (guint i = 0; i < c->arrays->len; i++)
    if (g_ptr_array_index (c->arrays, i))
      fw_array_unref (g_ptr_array_index (c->arrays, i));
  g_ptr_array_unref (c->arrays);
  g_ptr_array_unref (c->names);
  g_object_unref (c->model);
  g_free (c);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Op, op_free)

/* An input the shape inference sees as a constant (so it checks the kernel's output shape), taking a. */
static inline void
op_const (Op *c, FwArray *a)
{
  g_autofree char *name = g_strdup_printf ("in%u", c->arrays->len);
  g_autoptr(FwTensor) t = fw_array_to_tensor (a);
  g_autoptr(GError) error = NULL;

  g_assert_nonnull (fw_graph_add_initializer (c->g, name, t, &error));
  g_assert_no_error (error);
  g_ptr_array_add (c->names, g_steal_pointer (&name));
  g_ptr_array_add (c->arrays, a);
}

/* An input known only by its type and shape, so inference cannot refuse bad values before the kernel. */
static inline void
op_dyn (Op *c, FwArray *a)
{
  g_autofree char *name = g_strdup_printf ("in%u", c->arrays->len);
  FwDim dims[FW_MAX_RANK];
  g_autoptr(GError) error = NULL;

  for (guint i = 0; i < a->rank; i++)
    dims[i] = FW_DIM_STATIC (a->dims[i]);
  g_assert_nonnull (fw_graph_add_input (c->g, name, a->dtype, (gint) a->rank, dims, &error));
  g_assert_no_error (error);
  g_ptr_array_add (c->names, g_steal_pointer (&name));
  g_ptr_array_add (c->arrays, a);
}

static inline void
op_none (Op *c)
{
  g_ptr_array_add (c->names, g_strdup (""));
  g_ptr_array_add (c->arrays, NULL);
}

static inline FwNode *
op_node (Op *c)
{
  if (c->node == NULL)
    {
      const char *outs[8];
      g_autoptr(GError) error = NULL;

      for (guint i = 0; i < c->n_out; i++)
        outs[i] = fw_graph_intern (c->g, i == 0 ? "y0" : i == 1 ? "y1" : i == 2 ? "y2" : "y3");
      c->node = fw_graph_add_node (c->g, c->op, "", "n", c->names->len, (const char *const *) c->names->pdata,
                                   c->n_out, outs, &error);
      g_assert_no_error (error);
      c->node->opset = c->opset;
      for (guint i = 0; i < c->n_out; i++)
        g_assert_true (fw_graph_add_output (c->g, outs[i], NULL));
    }
  return c->node;
}

static inline gboolean
op_run (Op *c, GError **error)
{
  g_autoptr(FwExecContext) ctx = fw_exec_context_new (1, NULL);
  FwNode *node = op_node (c);

  g_assert_true (fw_graph_link (c->g, NULL));
  if (!fw_test_infer (c->model, NULL, NULL, error))
    return FALSE;
  return fw_exec_run_node (ctx, node, (FwArray *const *) c->arrays->pdata, c->out, error);
}

static inline void
op_ok (Op *c)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (op_run (c, &error));
  g_assert_no_error (error);
}

static inline void
op_fails (Op *c)
{
  g_autoptr(GError) error = NULL;

  g_assert_false (op_run (c, &error));
  g_assert_nonnull (error);
  g_test_message ("expected error: %s", error->message);
}
