/* fw-value-labels.h: the words shown for the values the plan and the checks record as identifiers
 * (candidate status, class-based kind, verification result), translated, so the list and the inspector say
 * the same thing in every language. An unknown value is shown as it is. */
#pragma once

#include "plan/fw-plan.h"

G_BEGIN_DECLS

/* "proposed", "accepted", "vetoed", "refused" (fw_candidate_status_name's names) */
const char *fw_label_status       (const char        *status);
const char *fw_label_candidate_status (FwCandidateStatus status);
/* "epilogue", "elementwise_chain", … (FwCandidate.kind) */
const char *fw_label_kind         (const char        *kind);
/* "pass", "fail", "unverified", "not-run" (the twin's); "" or NULL: "—" */
const char *fw_label_verification (const char        *result);

G_END_DECLS
