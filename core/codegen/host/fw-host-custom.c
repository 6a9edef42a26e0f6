/* fw-host-custom.c: a custom operator's C in a host SuperKernel: the operator registry's expression
 * (docs/custom-ops.md) printed with the node's operands for x0, x1… An entry without an expression is a
 * refusal of the whole group, with its code (docs/reason-codes.md). */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "fw-host-codegen-private.h"
#include "ops/fw-custom-ops.h"

char *
fw_hc_custom_expr (Gen *g, GString *s, const FwNode *node, gint pass, SkVal *out, GError **error)
{
  const FwCustomOp *op = node->op->custom;
  const FwCustomExpr *expr = fw_custom_op_get_expr (op);
  g_autoptr(GPtrArray) operands = g_ptr_array_new_with_free_func (g_free);

  if (expr == NULL)
    {
      fw_hc_unsupported (error, _("[FW-TG-001] custom operator %s (%s) has no host_expression, so the host target "
                                  "cannot compute it"),
                         fw_custom_op_get_name (op), fw_custom_op_get_origin (op));
      return NULL;
    }
  if (!fw_hc_is_floatish (out->dtype))
    {
      fw_hc_unsupported (error, _("custom operator %s computes in float; its result is %s"),
                         fw_custom_op_get_name (op), fw_dtype_name (out->dtype));
      return NULL;
    }
  for (guint k = 0; k < node->n_inputs; k++)
    {
      SkVal *v = fw_hc_input_val (g, node, k);
      GString *e;

      if (v == NULL || !fw_hc_is_floatish (v->dtype))
        {
          fw_hc_unsupported (error, _("custom operator %s: input %u is not a float tensor of the group"),
                             fw_custom_op_get_name (op), k);
          return NULL;
        }
      e = g_string_new (NULL);
      fw_hc_operand (g, s, v, pass, e);
      g_ptr_array_add (operands, g_string_free (e, FALSE));
    }
  g_ptr_array_add (operands, NULL);
  return fw_custom_expr_to_c (expr, (const char * const *) operands->pdata);
}
