/* fw-project.c: placeholder until the project object lands. */
#include "config.h"

#include "fw-project.h"
