/* fw-fingerprint.h: a stable identity for a model's structure, for whitelists and sessions. */
#pragma once

#include "fw-model.h"

G_BEGIN_DECLS

/* SHA-256 (lower-case hex) of the main graph's structure and everything nested in it: opsets, op types,
 * domains, node names, edges (input and output value names), attribute values, declared value dtypes and
 * ranks, initializer names, dtypes and dims, graph inputs and outputs. It never reads tensor bytes
 * (weights stay mmapped and untouched), and it leaves out dims that --bind can change, so the same file
 * gives the same fingerprint whatever is bound. */
char *fw_model_fingerprint (FwModel *model);

G_END_DECLS
