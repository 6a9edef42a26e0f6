/* fw-cli-support.h: the command-line tests' runner of the real binary (FW_BINARY) in a scratch folder, and
 * the report readers they share (test-cli.c, test-cli-exec.c). */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

#include "fw-test-models.h"

/* The binary under test and the scratch folder every run starts in (fw_cli_setup). */
extern const char *binary;
extern char *workdir;

void                fw_cli_setup    (void);
/* Removes the scratch folder. */
void                fw_cli_teardown (void);

/* Runs the binary with args (no display in its environment; extra_env: NAME, VALUE pairs) in workdir; its
 * exit status, or 128 + the signal. */
int                 run             (const char *const *args, char **out, char **err);
int                 run_env         (const char *const *args, const char *const *extra_env, char **out, char **err);
/* Writes model into workdir as name; the path. */
char               *write_model     (FwModel *model, const char *name);
void                write_text      (const char *name, const char *text);
JsonObject         *parse_report    (const char *path, JsonParser *parser);
/* The "plan" object of a JSON report given as text. */
JsonObject         *plan_of         (const char *json, JsonParser *parser);
gboolean            has_pattern     (JsonObject *plan, const char *pattern);
/* The nodes of all candidates of a parsed report. */
guint               n_fused_nodes   (JsonObject *root);
/* FALSE (and the test skipped) without a C compiler. */
gboolean            have_cc         (void);
/* XDG_CACHE_HOME in workdir, for runs that compile kernels: NAME, VALUE, NULL. */
const char *const  *cache_env       (void);
