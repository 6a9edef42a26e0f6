/* fw-kernels-scan.c: Scan (opset 9 and later), which runs its body once per slice of its scan inputs
 * through the interpreter (fw_exec_run_subgraph), so a fused body program replaces the body's reference
 * nodes exactly as for If and Loop.
 *
 * Opset 8's Scan (a leading sequence_lens input and a batch axis) is another operator under the same name
 * and is refused: the registry row says from which opset Scan is handled. */
#include "config.h"

#include <inttypes.h>

#include <string.h>

#include <glib/gi18n-lib.h>

#include "fw-error.h"
#include "fw-exec-private.h"
#include "fw-kernels-tensor-private.h"

/* How the inputs and outputs divide, and each scan input's axis and direction, checked. */
typedef struct
{
  guint n_state, n_scan_in, n_scan_out;
  guint *in_axis;
  gboolean *in_reverse;
} ScanShape;

static gboolean
read_list (const FwNode *node, const char *name, guint n, const gint64 **out, GError **error)
{
  guint len = 0;

  *out = fw_node_get_attr_ints (node, name, &len);
  if (*out != NULL && len != n)
    return fw_kernel_fail (error, node, _("attribute “%s” has %u values, %u are needed"), name, len, n);
  return TRUE;
}

static gboolean
read_direction (const FwNode *node, const char *name, const gint64 *dirs, guint k, gboolean *reverse,
                GError **error)
{
  gint64 d = dirs != NULL ? dirs[k] : 0;

  if (d != 0 && d != 1)
    return fw_kernel_fail (error, node, _("attribute “%s” value %u is %" PRId64 ", not 0 (forward) or 1 (reverse)"),
                           name, k, d);
  *reverse = d == 1;
  return TRUE;
}

/* The bytes of slice t of x along axis: x's dims without that axis. */
static FwArray *
take_slice (const FwNode *node, const FwArray *x, guint axis, gint64 t, GError **error)
{
  gint64 dims[FW_MAX_RANK];
  gsize esize = x->n_elements > 0 ? x->n_bytes / (gsize) x->n_elements : 0;
  gsize outer = 1, inner = esize, len = (gsize) x->dims[axis];
  guint rank = 0;
  FwArray *s;

  for (guint i = 0; i < x->rank; i++)
    {
      if (i == axis)
        continue;
      dims[rank++] = x->dims[i];
      if (i < axis)
        outer *= (gsize) x->dims[i];
      else
        inner *= (gsize) x->dims[i];
    }
  s = fw_kt_new_array (node, x->dtype, rank, dims, error);
  if (s == NULL)
    return NULL;
  for (gsize o = 0; o < outer && inner > 0; o++)
    memcpy ((guint8 *) s->data + o * inner, (const guint8 *) x->data + (o * len + (gsize) t) * inner, inner);
  return s;
}

/* The per-iteration values of one scan output stacked along axis (in reverse order when asked). */
static FwArray *
stack_output (const FwNode *node, const FwValue *decl, guint k, GPtrArray *parts, const gint64 *axes,
              const gint64 *dirs, GError **error)
{
  const FwArray *first = parts->len > 0 ? g_ptr_array_index (parts, 0) : NULL;
  gint64 dims[FW_MAX_RANK];
  gint64 axis_attr = axes != NULL ? axes[k] : 0;
  gboolean reverse = FALSE;
  guint axis, rank;
  gsize outer = 1, inner, t_len = parts->len;
  FwArray *y;

  if (first == NULL)
    {
      /* No step ran: an empty stack, shaped by the body's declaration, which must then be static. */
      if (decl->rank < 0 || decl->rank >= FW_MAX_RANK || !fw_value_is_static (decl) ||
          decl->dtype == FW_DTYPE_UNDEFINED)
        {
          fw_kernel_fail (error, node, _("the scan has no steps and the body does not declare the shape of "
                                         "scan output %u"), k);
          return NULL;
        }
      rank = (guint) decl->rank + 1;
      if (!fw_kernel_axis (node, axis_attr, rank, &axis, error))
        return NULL;
      for (guint i = 0, j = 0; i < rank; i++)
        dims[i] = i == axis ? 0 : decl->dims[j++].value;
      return fw_kt_new_array (node, decl->dtype, rank, dims, error);
    }
  if (!read_direction (node, "scan_output_directions", dirs, k, &reverse, error))
    return NULL;
  rank = first->rank + 1;
  if (rank > FW_MAX_RANK)
    {
      fw_kernel_fail (error, node, _("scan output %u would have rank over %d"), k, FW_MAX_RANK);
      return NULL;
    }
  if (!fw_kernel_axis (node, axis_attr, rank, &axis, error))
    return NULL;
  inner = first->n_elements > 0 ? first->n_bytes / (gsize) first->n_elements : 0;
  for (guint i = 0, j = 0; i < rank; i++)
    {
      if (i == axis)
        {
          dims[i] = (gint64) t_len;
          continue;
        }
      dims[i] = first->dims[j];
      if (i < axis)
        outer *= (gsize) first->dims[j];
      else
        inner *= (gsize) first->dims[j];
      j++;
    }
  for (guint t = 1; t < parts->len; t++)
    {
      const FwArray *a = g_ptr_array_index (parts, t);
      if (a->dtype != first->dtype || !fw_array_same_shape (a, first))
        {
          g_autofree char *s0 = fw_array_format_shape (first);
          g_autofree char *st = fw_array_format_shape (a);
          fw_kernel_fail (error, node, _("scan output %u changes from %s to %s in iteration %u"), k, s0, st, t);
          return NULL;
        }
    }
  y = fw_kt_new_array (node, first->dtype, rank, dims, error);
  if (y == NULL)
    return NULL;
  for (gsize t = 0; t < t_len && inner > 0; t++)
    {
      const guint8 *src = ((const FwArray *) g_ptr_array_index (parts, t))->data;
      gsize pos = reverse ? t_len - 1 - t : t;
      for (gsize o = 0; o < outer; o++)
        memcpy ((guint8 *) y->data + (o * t_len + pos) * inner, src + o * inner, inner);
    }
  return y;
}

/* Reads the scan inputs' axes and directions and the common sequence length. */
static gboolean
scan_inputs (const FwNode *node, FwArray *const *inputs, ScanShape *s, gint64 *seq, GError **error)
{
  const gint64 *axes, *dirs;

  if (!read_list (node, "scan_input_axes", s->n_scan_in, &axes, error) ||
      !read_list (node, "scan_input_directions", s->n_scan_in, &dirs, error))
    return FALSE;
  *seq = -1;
  for (guint m = 0; m < s->n_scan_in; m++)
    {
      const FwArray *x = inputs[s->n_state + m];
      gint64 len;

      if (x == NULL)
        return fw_kernel_fail (error, node, _("scan input %u is missing"), m);
      if (x->rank == 0)
        return fw_kernel_fail (error, node, _("scan input %u is a scalar: it has no axis to scan"), m);
      if (!fw_kernel_axis (node, axes != NULL ? axes[m] : 0, x->rank, &s->in_axis[m], error) ||
          !read_direction (node, "scan_input_directions", dirs, m, &s->in_reverse[m], error))
        return FALSE;
      len = x->dims[s->in_axis[m]];
      if (*seq >= 0 && len != *seq)
        return fw_kernel_fail (error, node, _("scan input %u has %" PRId64 " steps along its axis, the first %" PRId64),
                               m, len, *seq);
      *seq = len;
    }
  if (*seq < 0)
    return fw_kernel_fail (error, node, _("a scan needs at least one scan input"));
  if (*seq > FW_LOOP_MAX_ITERATIONS)
    return fw_kernel_fail (error, node, _("the scan runs past %d iterations"), FW_LOOP_MAX_ITERATIONS);
  return TRUE;
}

static FwGraph *
body_attr (const FwNode *node)
{
  const FwAttr *attr = fw_node_get_attr (node, "body");
  return attr != NULL && attr->type == FW_ATTR_GRAPH ? attr->g : NULL;
}

gboolean
fw_kernel_scan (FwExecContext *ctx, const FwNode *node, FwArray *const *inputs, guint n_inputs, FwArray **outputs,
                guint n_outputs, GError **error)
{
  FwGraph *body = body_attr (node);
  gint64 n_scan_attr = fw_node_get_attr_int (node, "num_scan_inputs", -1), seq = 0;
  ScanShape s = { 0 };
  gboolean ok = FALSE;
  g_autofree guint *in_axis = NULL;
  g_autofree gboolean *in_reverse = NULL;
  const gint64 *out_axes, *out_dirs;
  g_autofree FwArray **state = NULL;
  g_autofree FwArray **body_in = NULL;
  g_autofree FwArray **body_out = NULL;
  g_autofree GPtrArray **parts = NULL;

  if (node->opset > 0 && node->opset < 9)
    return fw_kernel_fail (error, node, _("Scan of opset %" PRId64 " (with sequence lengths and a batch axis) is not "
                                          "supported; opset 9 and later are"), node->opset);
  if (body == NULL)
    return fw_kernel_fail (error, node, _("attribute “body” is required"));
  if (n_scan_attr < 1 || n_scan_attr > (gint64) n_inputs)
    return fw_kernel_fail (error, node, _("attribute “num_scan_inputs” is %" PRId64 " for %u inputs"), n_scan_attr,
                           n_inputs);
  s.n_scan_in = (guint) n_scan_attr;
  s.in_axis = in_axis = g_new0 (guint, s.n_scan_in);
  s.in_reverse = in_reverse = g_new0 (gboolean, s.n_scan_in);
  s.n_state = n_inputs - s.n_scan_in;
  if (n_outputs < s.n_state)
    return fw_kernel_fail (error, node, _("%u state variables but only %u outputs"), s.n_state, n_outputs);
  s.n_scan_out = n_outputs - s.n_state;
  if (body->inputs->len != n_inputs || body->outputs->len != n_outputs)
    return fw_kernel_fail (error, node, _("the body has %u inputs and %u outputs where %u and %u are needed"),
                           body->inputs->len, body->outputs->len, n_inputs, n_outputs);
  for (guint k = 0; k < s.n_state; k++)
    if (inputs[k] == NULL)
      return fw_kernel_fail (error, node, _("state variable %u is missing"), k);
  if (!scan_inputs (node, inputs, &s, &seq, error) ||
      !read_list (node, "scan_output_axes", s.n_scan_out, &out_axes, error) ||
      !read_list (node, "scan_output_directions", s.n_scan_out, &out_dirs, error))
    return FALSE;

  state = g_new0 (FwArray *, s.n_state + 1);
  body_in = g_new0 (FwArray *, n_inputs + 1);
  body_out = g_new0 (FwArray *, n_outputs + 1);
  parts = g_new0 (GPtrArray *, s.n_scan_out + 1);
  for (guint k = 0; k < s.n_state; k++)
    state[k] = fw_array_ref (inputs[k]);
  for (guint k = 0; k < s.n_scan_out; k++)
    parts[k] = g_ptr_array_new_with_free_func ((GDestroyNotify) fw_array_unref);

  for (gint64 t = 0; t < seq; t++)
    {
      gboolean ran;

      if (ctx != NULL && g_cancellable_set_error_if_cancelled (ctx->cancellable, error))
        goto out;
      for (guint k = 0; k < s.n_state; k++)
        body_in[k] = state[k];
      for (guint m = 0; m < s.n_scan_in; m++)
        {
          gint64 at = s.in_reverse[m] ? seq - 1 - t : t;
          body_in[s.n_state + m] = take_slice (node, inputs[s.n_state + m], s.in_axis[m], at, error);
          if (body_in[s.n_state + m] == NULL)
            {
              for (guint j = 0; j < m; j++)
                g_clear_pointer (&body_in[s.n_state + j], fw_array_unref);
              goto out;
            }
        }
      ran = fw_exec_run_subgraph (ctx, body, body_in, n_inputs, body_out, error);
      for (guint m = 0; m < s.n_scan_in; m++)
        g_clear_pointer (&body_in[s.n_state + m], fw_array_unref);
      if (!ran)
        goto out;
      for (guint k = 0; k < s.n_state; k++)
        {
          g_clear_pointer (&state[k], fw_array_unref);
          state[k] = g_steal_pointer (&body_out[k]);
        }
      for (guint k = 0; k < s.n_scan_out; k++)
        g_ptr_array_add (parts[k], g_steal_pointer (&body_out[s.n_state + k]));
    }

  for (guint k = 0; k < s.n_state; k++)
    outputs[k] = node->outputs[k] != NULL ? g_steal_pointer (&state[k]) : NULL;
  for (guint k = 0; k < s.n_scan_out; k++)
    {
      if (node->outputs[s.n_state + k] == NULL)
        continue;
      outputs[s.n_state + k] = stack_output (node, g_ptr_array_index (body->outputs, s.n_state + k), k, parts[k],
                                             out_axes, out_dirs, error);
      if (outputs[s.n_state + k] == NULL)
        {
          for (guint j = 0; j < s.n_state + k; j++)
            g_clear_pointer (&outputs[j], fw_array_unref);
          goto out;
        }
    }
  ok = TRUE;

out:
  for (guint k = 0; k < s.n_state; k++)
    g_clear_pointer (&state[k], fw_array_unref);
  for (guint k = 0; k < s.n_scan_out; k++)
    g_ptr_array_unref (parts[k]);
  return ok;
}
