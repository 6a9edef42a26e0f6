/* fw-error.h: the one error domain of libfwcore.
 *
 * Every failure a user can cause (a bad file, a bad option) is a GError in FW_ERROR whose message names the
 * file, the place in it and what was wrong. Internal failures use FW_ERROR_INTERNAL so batch mode can map
 * them to exit code 3. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define FW_ERROR (fw_error_quark ())

typedef enum {
  FW_ERROR_PARSE,       /* the bytes are not a well-formed file of the expected kind */
  FW_ERROR_INVALID,     /* well-formed, but the content breaks a rule (cycle, dangling name, bad dims) */
  FW_ERROR_UNSUPPORTED, /* valid, but outside what we handle (IR version, opset) */
  FW_ERROR_LIMIT,       /* a resource cap was hit (nesting, node count, tensor size) */
  FW_ERROR_IO,          /* the file system refused */
  FW_ERROR_USAGE,       /* bad command line or option value */
  FW_ERROR_INTERNAL,    /* a bug of ours */
} FwError;

GQuark fw_error_quark (void);

G_END_DECLS
