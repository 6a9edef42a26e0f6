/* twin_diag.h: the diagnostics the twin collects and what its driver (twin_main.cpp) shares with the core
 * (twin_core.cpp). Not part of the Ascend C API. */
#ifndef FW_TWIN_DIAG_H
#define FW_TWIN_DIAG_H

namespace fwtwin {

enum { MAX_DIAGS = 256 };

/* One diagnostic: the same code at the same kernel line counts once. */
struct DiagRecord
{
  const char *code;
  char file[64];
  int line;
  long count;
  char message[320];
};

extern DiagRecord diags[MAX_DIAGS];
extern int n_diags;

}  // namespace fwtwin

#endif
