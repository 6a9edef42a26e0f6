#include "config.h"

#include "fw-error.h"

G_DEFINE_QUARK (fw-error-quark, fw_error)
