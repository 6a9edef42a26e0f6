/* libFuzzer target: the ONNX reader and shape inference on arbitrary bytes. Any crash, leak, sanitizer
 * report or hang is a finding; a clean GError is the expected outcome for almost every input. */
#include "config.h"

#include "onnx/fw-onnx.h"
#include "shape/fw-shape-infer.h"

int LLVMFuzzerTestOneInput (const guint8 *data, size_t size);

int
LLVMFuzzerTestOneInput (const guint8 *data, size_t size)
{
  g_autoptr(GBytes) bytes = g_bytes_new_static (data, size);
  g_autoptr(GError) error = NULL;
  g_autoptr(FwModel) model = fw_onnx_load_bytes (bytes, "fuzz.onnx", NULL, NULL, &error);

  if (model != NULL)
    {
      FwInferOptions options = { 0 };
      FwInferReport report;
      g_autoptr(GError) infer_error = NULL;
      g_autoptr(GBytes) again = NULL;

      fw_infer_report_init (&report);
      fw_shape_infer_graph (fw_model_get_graph (model), &options, &report, &infer_error);
      fw_infer_report_clear (&report);
      /* What loads must also serialise. */
      again = fw_onnx_serialize (model, FW_ONNX_WRITE_DEFAULT, NULL);
    }
  return 0;
}
