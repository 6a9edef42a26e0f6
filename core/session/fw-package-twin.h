/* fw-package-twin.h: re-running the Ascend kernels of an exported kernel package on the Ascend C twin
 * (fusion-workbench --twin DIR): each kernel's files as they are on disk now (a user may have edited them),
 * on seeded inputs of the shapes manifest.json records, checked against the reference interpreter run on
 * the package's group.onnx (the group alone as a small model). docs/ascend-twin.md describes the package
 * members it reads. */
#pragma once

#include <glib.h>

#include "codegen/fw-ascend-twin.h"

G_BEGIN_DECLS

typedef struct
{
  char        *id;         /* "k003" */
  char        *folder;     /* "k003_layernorm" */
  char        *pattern;
  char        *source;     /* the kernel file, relative to the package */
  gdouble      planner_s;  /* the planner's estimate the manifest records (estimates.time_after_s) */
  FwTwinCheck *check;
} FwPackageTwinKernel;

typedef struct
{
  char      *profile;  /* the manifest's */
  GPtrArray *kernels;  /* FwPackageTwinKernel*, in manifest order */
  GPtrArray *skipped;  /* char*: "k004: why the package has no Ascend kernel for it" */
} FwPackageTwinResult;

/* only: kernel ids ("k003", "3" or the folder name) to run, NULL or empty for all. Errors (FW_ERROR_USAGE:
 * no such folder, an unknown --kernel; FW_ERROR_INVALID: manifest.json or group.onnx unreadable or
 * inconsistent, naming the file and the member) mean the package could not be checked; a kernel that does
 * not compile or run is a failed check in the result. cache_dir NULL: the default kernel cache. */
FwPackageTwinResult *fw_package_twin_run          (const char          *dir,
                                                   const char * const  *only,
                                                   const char          *cache_dir,
                                                   guint64              seed,
                                                   GError             **error);
void                 fw_package_twin_result_free  (FwPackageTwinResult *result);
/* Every kernel ran, passed and gave no diagnostic. */
gboolean             fw_package_twin_result_pass  (const FwPackageTwinResult *result);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FwPackageTwinResult, fw_package_twin_result_free)

G_END_DECLS
