/* fw-plan-empty.h: why a plan fuses nothing, in a sentence a person can act on: fusion turned off
 * (AUTOFUSION_ENABLE=0), symbolic dims without a size, no operator that could join another, or every
 * candidate refused or vetoed, with the commonest reason codes and their counts. */
#pragma once

#include "plan/fw-plan.h"

G_BEGIN_DECLS

/* NULL when plan proposes or accepts at least one fusion. unbound: the model's symbolic dims that have no
 * size (may be NULL). Translated. */
char *fw_plan_explain_empty (const FwPlan        *plan,
                             const char * const  *unbound);

G_END_DECLS
