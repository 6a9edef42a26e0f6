/* fw-onnx-roundtrip: reads a model and writes it back unchanged, for the round-trip check against ONNX
 * Runtime. Usage: fw-onnx-roundtrip IN.onnx OUT.onnx [--external-data] [--infer] */
#include "config.h"

#include <string.h>

#include "onnx/fw-onnx.h"
#include "shape/fw-shape-infer.h"

int
main (int argc, char **argv)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FwModel) model = NULL;
  FwOnnxWriteFlags flags = FW_ONNX_WRITE_DEFAULT;
  gboolean infer = FALSE;

  if (argc < 3)
    {
      g_printerr ("usage: fw-onnx-roundtrip IN.onnx OUT.onnx [--external-data] [--infer]\n");
      return 2;
    }
  for (int i = 3; i < argc; i++)
    {
      if (strcmp (argv[i], "--external-data") == 0)
        flags |= FW_ONNX_WRITE_EXTERNAL_DATA;
      else if (strcmp (argv[i], "--infer") == 0)
        infer = TRUE;
    }
  model = fw_onnx_load (argv[1], NULL, NULL, &error);
  if (model == NULL)
    {
      g_printerr ("%s\n", error->message);
      return 2;
    }
  if (infer)
    {
      FwInferOptions options = { 0 };
      FwInferReport report;
      gboolean ok;

      fw_infer_report_init (&report);
      ok = fw_shape_infer_graph (fw_model_get_graph (model), &options, &report, &error);
      fw_infer_report_clear (&report);
      if (!ok)
        {
          g_printerr ("%s\n", error->message);
          return 2;
        }
      flags |= FW_ONNX_WRITE_INFERRED_SHAPES;
    }
  if (!fw_onnx_write (model, argv[2], flags, &error))
    {
      g_printerr ("%s\n", error->message);
      return 2;
    }
  return 0;
}
