/* fw-reason.c: the refusal codes, their stable strings and one-line meanings (docs/reason-codes.md has
 * what each means in full and what the user can do). */
#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "fw-plan.h"

static const struct {
  const char *code;
  const char *title;
} reasons[FW_NF_N_CODES] = {
  [FW_NF_CYCLE] = { "FW-NF-001", N_("would create a cycle through a node outside the group") },
  [FW_NF_OUTSIDE_USE] = { "FW-NF-002", N_("an intermediate is used outside the group and multi-output is not allowed") },
  [FW_NF_ITERATION_SPACE] = { "FW-NF-003", N_("iteration spaces do not map onto each other") },
  [FW_NF_DTYPE] = { "FW-NF-004", N_("element types differ without a Cast") },
  [FW_NF_OPAQUE] = { "FW-NF-005", N_("opaque operator (control flow, unknown or not fusable)") },
  [FW_NF_DYNAMIC] = { "FW-NF-006", N_("a dimension is dynamic and not bound") },
  [FW_NF_MAX_SIZE] = { "FW-NF-007", N_("the group would exceed the maximum fusion size") },
  [FW_NF_MAX_INPUTS] = { "FW-NF-008", N_("the kernel would exceed the maximum number of inputs") },
  [FW_NF_UB] = { "FW-NF-009", N_("no tile fits in the Unified Buffer budget") },
  [FW_NF_NO_BENEFIT] = { "FW-NF-010", N_("fusing would not save time") },
  [FW_NF_FORBIDDEN] = { "FW-NF-011", N_("forbidden by a rule") },
  [FW_NF_VETOED] = { "FW-NF-012", N_("vetoed by the user or a whitelist") },
  [FW_NF_MAX_DEPTH] = { "FW-NF-013", N_("the chain would exceed the maximum depth") },
  [FW_NF_STRATEGY] = { "FW-NF-014", N_("this kind of fusion is not enabled by the strategy") },
  [FW_NF_REDUCE_EPILOGUE] = { "FW-NF-015", N_("a reduction may absorb at most 3 elementwise operators after it") },
  [FW_NF_SKIPPED] = { "FW-NF-016", N_("kept out of fusion by CANN's AUTOFUSE_FLAGS or AUTOFUSE_DFX_FLAGS") },
  [FW_NF_INDEX_MAP] = { "FW-NF-017", N_("an injective operator's index map cannot be followed by the tile") },
  [FW_NF_GATHER_INDICES] = { "FW-NF-018", N_("a gather reads at indices known only at run time") },
  [FW_NF_PIECEWISE] = { "FW-NF-019", N_("a concat, split or pad maps parts of the tile to different tensors") },
  [FW_NF_QDQ_AXIS] = { "FW-NF-020", N_("a quantisation axis the integer kernel's tile cannot follow") },
  [FW_NF_QDQ_PARAMS] = { "FW-NF-021", N_("quantisation scales or zero points are not constants") },
  [FW_NF_QDQ_SHARED] = { "FW-NF-022", N_("a DequantizeLinear shared by several integer kernels stays a node of its own") },
  [FW_NF_QDQ_FORM] = { "FW-NF-023", N_("the integer kernel has no form for this operator, type or size") },
  [FW_NF_ATTENTION] = { "FW-NF-024", N_("an attention chain the fused attention kernel cannot follow") },
  [FW_NF_HGEMM] = { "FW-NF-025", N_("projections sharing an input cannot be one horizontal GEMM") },
  [FW_NF_HGEMM_EPILOGUE] = { "FW-NF-026", N_("a projection's epilogue has an operator the horizontal GEMM cannot compute per slice") },
};

const char *
fw_reason_code_string (FwReasonCode code)
{
  if (code <= 0 || code >= FW_NF_N_CODES)
    return "FW-NF-000";
  return reasons[code].code;
}

const char *
fw_reason_code_title (FwReasonCode code)
{
  if (code <= 0 || code >= FW_NF_N_CODES)
    return "";
  return _(reasons[code].title);
}

const char *
fw_candidate_status_name (FwCandidateStatus status)
{
  switch (status)
    {
    case FW_CANDIDATE_PROPOSED: return "proposed";
    case FW_CANDIDATE_ACCEPTED: return "accepted";
    case FW_CANDIDATE_VETOED: return "vetoed";
    case FW_CANDIDATE_REFUSED: return "refused";
    default: return "?";
    }
}

/* By what CANN's not_fuse_reason_code.h names (docs/hardware.md lists them). */
static const char *
injective_cann_code (const FwNode *node)
{
  static const char *const ops[][2] = {
    { "Concat", "NF1011" }, { "Gather", "NF1016" }, { "GatherElements", "NF1016" }, { "GatherND", "NF1016" },
    { "Transpose", "NF1022" }, { "Slice", "NF1023" }, { "Split", "NF1028" },
  };

  for (guint i = 0; node != NULL && i < G_N_ELEMENTS (ops); i++)
    if (strcmp (node->op_type, ops[i][0]) == 0)
      return ops[i][1];
  return NULL;
}

const char *
fw_reason_cann_code (const FwRefusal *refusal)
{
  switch (refusal->code)
    {
    case FW_NF_CYCLE: return "NF1002";
    case FW_NF_MAX_SIZE: return "NF1010";
    case FW_NF_MAX_INPUTS: return "NF1007";
    case FW_NF_REDUCE_EPILOGUE: return "NF1030";
    case FW_NF_INDEX_MAP:
    case FW_NF_GATHER_INDICES:
    case FW_NF_PIECEWISE:
      return injective_cann_code (refusal->refused);
    case FW_NF_ITERATION_SPACE:
      {
        const char *code = injective_cann_code (refusal->refused);
        if (code != NULL)
          return code;
        /* A MatMul epilogue that takes something other than elementwise ops: the cube fusion limits. */
        for (guint i = 0; i < refusal->nodes->len; i++)
          {
            const FwNode *n = g_ptr_array_index (refusal->nodes, i);
            if (n != refusal->refused && (strcmp (n->op_type, "MatMul") == 0 || strcmp (n->op_type, "Gemm") == 0))
              return "NF1042";
          }
        return NULL;
      }
    case FW_NF_OUTSIDE_USE:
    case FW_NF_DTYPE:
    case FW_NF_OPAQUE:
    case FW_NF_DYNAMIC:
    case FW_NF_UB:
    case FW_NF_NO_BENEFIT:
    case FW_NF_FORBIDDEN:
    case FW_NF_VETOED:
    case FW_NF_MAX_DEPTH:
    case FW_NF_STRATEGY:
    case FW_NF_SKIPPED:
    case FW_NF_QDQ_AXIS:
    case FW_NF_QDQ_PARAMS:
    case FW_NF_QDQ_SHARED:
    case FW_NF_QDQ_FORM:
    case FW_NF_ATTENTION:
    default:
      return NULL;
    }
}
