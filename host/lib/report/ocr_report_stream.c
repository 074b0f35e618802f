/* ocr_report_stream.c - the report of a streamed reduction (ocr_stream.c
 * computes it): text, or one JSON object. */
#include "report.h"

void ocr_stream_report(FILE *f, ocr_format fmt, const ocr_device *dev, const ocr_report_info *ri,
                       const ocr_stream_result *r) {
    const ocr_device_info *in = &dev->info;
    size_t es = ocr_type_size(r->type);
    double ratio = r->h2d_gbs > 0 ? r->e2e_gbs / r->h2d_gbs : 0;
    char got[64], want[64];
    ocr_value_str(r->type, r->result, got, sizeof got);
    ocr_value_str(r->type, r->expected, want, sizeof want);
    if (fmt == OCR_FORMAT_JSON) {
        ocr_json_open(f, "stream", ri, r->type, r->op, r->n);
        fputs(", \"device\": ", f);
        ocr_report_quoted(f, OCR_FORMAT_JSON, in->name);
        fprintf(f,
                ", \"automatic\": %s, \"max_alloc_bytes\": %llu, \"chunks\": %llu, \"chunk\": "
                "%llu, \"chunk_bytes\": %llu, \"result\": ",
                r->automatic ? "true" : "false", (unsigned long long)r->max_alloc,
                (unsigned long long)r->chunks, (unsigned long long)r->chunk,
                (unsigned long long)(r->chunk * es));
        ocr_report_quoted(f, OCR_FORMAT_JSON, got);
        fputs(", \"expected\": ", f);
        ocr_report_quoted(f, OCR_FORMAT_JSON, want);
        fprintf(f, ", \"exact\": true, \"passed\": %s, \"wall_ms\": %.6f, \"fill_ms\": %.6f, ",
                r->passed ? "true" : "false", ocr_ms(r->wall_ns), ocr_ms(r->fill_ns));
        fputs("\"e2e_gbs\": ", f);
        ocr_json_num(f, r->e2e_gbs);
        fprintf(f, ", \"h2d_chunk_ms\": %.6f, \"h2d_gbs\": ", ocr_ms(r->h2d_ns));
        ocr_json_num(f, r->h2d_gbs);
        fputs(", \"e2e_over_h2d\": ", f);
        ocr_json_num(f, ratio);
        fprintf(f, ", \"ready_ms\": %.6f, \"ready_gbs\": ", ocr_ms(r->pipe_ns));
        ocr_json_num(f, r->pipe_gbs);
        fputs(", \"ready_over_h2d\": ", f);
        ocr_json_num(f, r->h2d_gbs > 0 ? r->pipe_gbs / r->h2d_gbs : 0);
        fprintf(f, ", \"copy_ms\": %.6f, \"copy_gbs\": ", ocr_ms(r->copy_ns));
        ocr_json_num(f, r->copy_gbs);
        fputs(", \"ready_over_copy\": ", f);
        ocr_json_num(f, r->copy_gbs > 0 ? r->pipe_gbs / r->copy_gbs : 0);
        fputs("}\n", f);
        return;
    }
    fprintf(f, "Streamed '%s': %llu elements (%s %s, seed %llu, %s data)\n", ri->kernel_name,
            (unsigned long long)r->n, ocr_type_name(r->type), ocr_op_name(r->op),
            (unsigned long long)ri->seed, ocr_data_kind_name(ri->data));
    if (r->automatic)
        fprintf(f,
                "Streaming automatically: the input needs %llu MiB, more than one buffer may "
                "hold (CL_DEVICE_MAX_MEM_ALLOC_SIZE %llu MiB)\n",
                (unsigned long long)((r->n * es) >> 20), (unsigned long long)(r->max_alloc >> 20));
    fprintf(f, "Platform: %s (%s)\n", in->platform, in->platform_version);
    fprintf(f, "Will use this device: %s (driver %s, %s)\n", in->name, in->driver, in->version);
    fprintf(f,
            "Chunks: %llu of %llu elements (%.3f MiB); 2 pinned host slots, 2 device buffers; "
            "upload and reduction on two queues\n",
            (unsigned long long)r->chunks, (unsigned long long)r->chunk,
            (double)(r->chunk * es) / (1 << 20));
    if (ri->build_options) fprintf(f, "Build options added: %s\n", ri->build_options);
    ocr_print_result(f, r->type, r->op, r->result, r->expected, "", 1, r->any_order, 0, 0, 0);
    fprintf(f,
            ")\nChecked: the chunks' values combined in order against the chunks' references "
            "combined alike\n\n%s\n\n",
            r->passed ? "Test PASSED!" : "Test FAILED!");
    fprintf(f,
            "T wall: %.5g ms (host clock, first chunk generated to last value read; the host "
            "spent %.5g ms generating the input)\n",
            ocr_ms(r->wall_ns), ocr_ms(r->fill_ns));
    fprintf(f, "End to end: %.3f GB/s of input (input bytes / T wall)\n", r->e2e_gbs);
    fprintf(f, "Pinned H2D: %.3f GB/s (one chunk's upload alone, %.3f MiB, median of %d)\n",
            r->h2d_gbs, (double)r->h2d_bytes / (1 << 20), OCR_STREAM_H2D_REPS);
    fprintf(f, "End to end / pinned H2D: %.3f\n", ratio);
    fprintf(f,
            "Input ready in host memory: %.3f GB/s (the same stream again without generating "
            "the input: %.5g ms, median of %d), %.3f of pinned H2D\n",
            r->pipe_gbs, ocr_ms(r->pipe_ns), OCR_STREAM_ROUNDS,
            r->h2d_gbs > 0 ? r->pipe_gbs / r->h2d_gbs : 0);
    fprintf(f,
            "Sustained pinned H2D: %.3f GB/s (the same bytes in the same chunks and slots, copies "
            "only: %.5g ms, median of %d, alternated with the stream)\n",
            r->copy_gbs, ocr_ms(r->copy_ns), OCR_STREAM_ROUNDS);
    fprintf(f, "Input ready / sustained pinned H2D: %.3f\n",
            r->copy_gbs > 0 ? r->pipe_gbs / r->copy_gbs : 0);
}
