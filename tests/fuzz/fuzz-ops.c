/* libFuzzer target: the operator registry reader (docs/custom-ops.md) on arbitrary YAML, and the same
 * bytes as a host expression. What loads is used as the pipeline uses it: every expression evaluated and
 * printed as C, so a tree the parser accepts must also be one the evaluator and printer can walk. */
#include "config.h"

#include <string.h>

#include "ops/fw-custom-ops.h"

int LLVMFuzzerTestOneInput (const guint8 *data, size_t size);

static void
use (const FwCustomExpr *expr, guint n_inputs)
{
  static const float values[] = { 0.0f, -1.5f, 3.0f, 1e30f };
  const char *operands[FW_CUSTOM_EXPR_MAX_INPUTS + 1] = { NULL };
  float x[FW_CUSTOM_EXPR_MAX_INPUTS];
  g_autofree char *c = NULL;

  for (guint k = 0; k < n_inputs; k++)
    operands[k] = "v";
  for (guint v = 0; v < G_N_ELEMENTS (values); v++)
    {
      for (guint k = 0; k < n_inputs; k++)
        x[k] = values[(v + k) % G_N_ELEMENTS (values)];
      (void) fw_custom_expr_eval (expr, x);
    }
  c = fw_custom_expr_to_c (expr, operands);
  g_assert (c != NULL && c[0] != '\0');
}

int
LLVMFuzzerTestOneInput (const guint8 *data, size_t size)
{
  g_autoptr(FwCustomOps) set = fw_custom_ops_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *text = g_strndup ((const char *) data, size);
  g_autofree char *message = NULL;
  g_autoptr(FwCustomExpr) expr = NULL;
  gsize offset = 0;

  if (fw_custom_ops_load_data (set, "fuzz.yaml", (const char *) data, size, &error))
    for (guint i = 0; i < fw_custom_ops_get_n_ops (set); i++)
      {
        const FwOpInfo *op = fw_custom_ops_get_op (set, i);
        if (fw_custom_op_get_expr (op->custom) != NULL)
          use (fw_custom_op_get_expr (op->custom), fw_custom_op_get_n_inputs (op->custom));
      }
  else
    g_assert (error != NULL);
  expr = fw_custom_expr_parse (text, 4, &offset, &message);
  if (expr != NULL)
    use (expr, 4);
  else
    g_assert (message != NULL && offset <= strlen (text));
  return 0;
}
