#include "config.h"

#include <glib/gi18n.h>

#include "fw-value-labels.h"

const char *
fw_label_status (const char *status)
{
  if (g_strcmp0 (status, "proposed") == 0)
    return _("proposed");
  if (g_strcmp0 (status, "accepted") == 0)
    return _("accepted");
  if (g_strcmp0 (status, "vetoed") == 0)
    return _("vetoed");
  if (g_strcmp0 (status, "refused") == 0)
    return _("refused");
  return status != NULL ? status : "";
}

const char *
fw_label_candidate_status (FwCandidateStatus status)
{
  return fw_label_status (fw_candidate_status_name (status));
}

const char *
fw_label_kind (const char *kind)
{
  static const struct {
    const char *kind;
    const char *label;
  } kinds[] = {
    /* Translators: kinds of fusion: a compute operator (MatMul, Conv) with the elementwise operators after it */
    { "epilogue", N_("compute epilogue") },
    { "elementwise_chain", N_("elementwise chain") },
    /* Translators: a reduction with the elementwise operators after it */
    { "reduce_epilogue", N_("reduction epilogue") },
    /* Translators: a reduction whose result is broadcast back over its rows (norm and softmax insides) */
    { "reduce_broadcast", N_("reduction and broadcast") },
    { "multi_output", N_("multi-output") },
    /* Translators: independent operators on the same input fused side by side */
    { "horizontal", N_("horizontal") },
    /* Translators: a fusion that reaches across reshape-like operators */
    { "through_views", N_("across reshapes") },
    /* Translators: MatMul, scale and mask, Softmax and MatMul in one kernel */
    { "attention", N_("fused attention") },
    /* Translators: several MatMul/Gemm nodes reading one input fused into one wider product */
    { "horizontal_gemm", N_("side-by-side products") },
    /* Translators: an int8 compute operator with its DequantizeLinear and QuantizeLinear nodes (QDQ form) */
    { "qdq_integer", N_("integer (QDQ)") },
  };

  for (guint i = 0; i < G_N_ELEMENTS (kinds); i++)
    if (g_strcmp0 (kind, kinds[i].kind) == 0)
      return _(kinds[i].label);
  return kind != NULL ? kind : "";
}

const char *
fw_label_verification (const char *result)
{
  if (g_strcmp0 (result, "pass") == 0)
    return _("pass");
  if (g_strcmp0 (result, "fail") == 0)
    return _("fail");
  /* The SuperKernel did not compile: the group runs on the reference kernels. */
  if (g_strcmp0 (result, "unverified") == 0)
    return _("unverified");
  /* The Ascend kernel could not be run on the twin (no C++ compiler, or it did not build). */
  if (g_strcmp0 (result, "not-run") == 0)
    return _("not run");
  return result != NULL && result[0] != '\0' ? result : "—";
}
