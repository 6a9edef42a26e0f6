#include "plan/fw-plan.h"
#include "session/fw-project.h" /* expect: layer */
#include "fw-missing.h" /* expect: unresolved */
