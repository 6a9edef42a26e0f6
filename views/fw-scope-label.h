/* fw-scope-label.h: what a collapsed scope's box says: its name, the nodes inside and, once planned, the
 * estimated time the plan's proposed and accepted fusions save inside it, so a model opened collapsed
 * already shows where fusion pays. */
#pragma once

#include "layout/fw-layout.h"
#include "plan/fw-plan.h"

G_BEGIN_DECLS

/* Seconds saved inside each box of layout (a new array, one per box; 0 for node boxes), from the candidates
 * plan proposes or accepts, each counted in the collapsed scope holding its first drawn node. NULL when
 * plan is NULL. */
gdouble *fw_scope_savings (FwLayout          *layout,
                           const FwPlan      *plan);
/* "blocks.3 (45)", or "blocks.3 (45) · −12.3 µs" when saving_s is positive. */
char    *fw_scope_label   (const FwLayoutBox *box,
                           gdouble            saving_s);

G_END_DECLS
