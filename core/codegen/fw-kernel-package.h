/* fw-kernel-package.h: the kernel package an export writes (docs/design.md §4.8): one folder per fused
 * candidate, kNNN_<pattern>, with `ascend/` (Ascend C kernel, tiling header, host tiling, CMake project,
 * README) and `host/` (C source and shared object of the host SuperKernel, when given), plus manifest.json
 * describing all of them with SHA-256 hashes of every file.
 *
 * The package is written whole into a staging folder beside dir and swapped in with one rename, so a killed
 * export leaves the old package or the new one, never a manifest naming files of another write; files of
 * candidates no longer fused do not linger. */
#pragma once

#include <glib.h>

#include "codegen/fw-targets.h"
#include "plan/fw-plan.h"
#include "plan/fw-superkernel-plan.h"

G_BEGIN_DECLS

#define FW_KERNEL_PACKAGE_FORMAT_VERSION 1

/* Writes the package of the kernels targets generated for the plan's proposed and accepted candidates as
 * dir (replacing what was there): a folder per target its kernel files came from, and for compiled host
 * kernels the shared object. A candidate the Ascend target could not generate is listed in the manifest with
 * the reason instead of a folder. FW_ERROR_IO when the file system refuses; FW_ERROR_USAGE when a file would
 * overwrite the model. */
gboolean fw_kernel_package_write        (FwPlan                       *plan,
                                         const FwTargets              *targets,
                                         const char                   *dir,
                                         GError                      **error);

/* A fused candidate's group alone as a small ONNX model (the export layer makes it:
 * fw_fused_model_write_kernel_package); NULL with error stops the write. */
typedef GBytes *(*FwKernelPackageGroupFunc) (guint      candidate,
                                             gpointer   user_data,
                                             GError   **error);

/* The same, and with the Ascend target each generated kernel's group as kNNN_…/group.onnx from group_func
 * (NULL: none), named by the kernel's manifest entry ("group") beside what re-running it needs
 * ("ascend_kernel": entry, files, block count, tiling values, arguments), for fusion-workbench --twin. */
gboolean fw_kernel_package_write_with_groups (FwPlan                  *plan,
                                              const FwTargets         *targets,
                                              const char              *dir,
                                              FwKernelPackageGroupFunc group_func,
                                              gpointer                 group_data,
                                              GError                 **error);

/* The same, and with the Ascend target each SuperKernel scope of sk (NULL: none) as superkernels/sNNN/ascend/
 * (sk_NNN.cpp, its tiling header, CMake project, README), named in the manifest's "superkernels" with what
 * re-running it on the twin needs ("ascend_superkernel": entry, block count, tiling, arguments). */
gboolean fw_kernel_package_write_with_scopes (FwPlan                  *plan,
                                              const FwTargets         *targets,
                                              const char              *dir,
                                              FwKernelPackageGroupFunc group_func,
                                              gpointer                 group_data,
                                              const FwSkPlan          *sk,
                                              GError                 **error);

/* FALSE with FW_ERROR_USAGE when dir holds the input model or one of its data files (the write would
 * replace them with the folder): callers that write other files first check this before any of them. */
gboolean fw_kernel_package_check_destination (FwPlan                  *plan,
                                              const char              *dir,
                                              GError                 **error);

/* "k003_matmul_bias_gelu": the folder a candidate's kernels go to. */
char    *fw_kernel_package_folder_name  (const FwCandidate            *candidate);

G_END_DECLS
