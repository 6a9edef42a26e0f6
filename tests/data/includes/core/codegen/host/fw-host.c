#include "plan/fw-plan.h"
#include "codegen/ascend/fw-ascend.h" /* expect: target */
