#include "plan/fw-plan.h"
#include "exec/fw-run.h"
