/* ocr_report_split.c - the report of a reduction split over several devices
 * (ocr_split.c computes it): a table of the devices and the aggregate, or
 * one JSON object holding each device's own report. */
#include "report.h"

static void text(FILE *f, const ocr_report_info *ri, const ocr_split_result *r) {
    size_t es = ocr_type_size(r->type);
    fprintf(f, "Split '%s' over %u devices: %llu elements (%s %s, seed %llu, %s data)\n",
            ri->kernel_name, r->nparts, (unsigned long long)r->n, ocr_type_name(r->type),
            ocr_op_name(r->op), (unsigned long long)ri->seed, ocr_data_kind_name(ri->data));
    fprintf(f, "Shares: %s\n",
            r->shares == OCR_SHARES_RATE
                ? "rate (proportional to each device's end-to-end GB/s in a probe run)"
                : "equal");
    fprintf(f, "%-4s %-34s %12s %7s %12s %12s %10s %10s  %s\n", "p.d", "device", "elements",
            "share", "T kernels", "T total", "GB/s", "GB/s e2e", "check");
    for (unsigned i = 0; i < r->nparts; ++i) {
        const ocr_split_part *p = &r->part[i];
        const ocr_result *s = &p->res;
        const char *name = p->dev ? ocr_device_get_info(p->dev)->name : "(not opened)";
        fprintf(f, "%d.%-2d %-34.34s %12llu %6.2f%%", p->choice.platform, p->choice.device, name,
                (unsigned long long)p->count, 100.0 * (double)p->count / (double)r->n);
        if (!p->count) {
            fprintf(f, "  (no share: fewer elements than devices)\n");
            continue;
        }
        fprintf(f, " %9.4f ms %9.4f ms %10.3f %10.3f  %s\n", ocr_ms(s->median.kernels_ns),
                ocr_ms(s->median.gpu_ns), ocr_ratio(s->plan.elems_read * es, s->median.kernels_ns),
                ocr_ratio(p->count * es, s->median.gpu_ns), s->passed ? "PASSED" : "FAILED");
    }
    for (unsigned i = 0; r->shares == OCR_SHARES_RATE && i < r->nparts; ++i)
        fprintf(f, "Probe %d.%d: %.3f GB/s end to end\n", r->part[i].choice.platform,
                r->part[i].choice.device, r->part[i].probe_gbs);
    ocr_print_result(f, r->type, r->op, r->result, r->expected, " of the whole input", r->exact,
                     r->any_order, r->err_ulps, r->tol_ulps, r->tolerance);
    fprintf(f,
            ")\nChecked: each device's share against its own reference in all %u runs; the "
            "combination of every run%s\n\n%s\n\n",
            r->repeats + 1, r->bad_run ? "" : ", identical in all",
            r->passed ? "Test PASSED!" : "Test FAILED!");
    const ocr_times *md = &r->median, *mn = &r->min;
    fprintf(f,
            "Aggregate (median of %u runs; every run starts on all devices together, the "
            "slowest device sets its time):\n",
            r->repeats);
    fprintf(f,
            "T kernels: %.5g ms (min %.5g); bandwidth read %.3f GB/s (every device's bytes / "
            "the slowest device's T kernels)\n",
            ocr_ms(md->kernels_ns), ocr_ms(mn->kernels_ns),
            ocr_ratio(r->elems_read * es, md->kernels_ns));
    fprintf(f,
            "T gpu: %.5g ms (kernels + read-back + CPU finish + combine, input already on the "
            "devices; min %.5g)\n",
            ocr_ms(md->resident_ns), ocr_ms(mn->resident_ns));
    fprintf(f,
            "T total: %.5g ms end to end from host memory (H2D + kernels + D2H + CPU + "
            "combine; min %.5g): %.3f GB/s of input\n",
            ocr_ms(md->gpu_ns), ocr_ms(mn->gpu_ns), ocr_ratio(r->n * es, md->gpu_ns));
    fprintf(f, "T combine: %.6f ms (host, %u values)\n", ocr_ms(r->combine_ns), r->nparts);
    fprintf(f,
            "T wall: %.5g ms (host clock from the start on every device to the end on the "
            "last, per run; min %.5g)\n",
            ocr_ms(md->wall_ns), ocr_ms(mn->wall_ns));
}

static void json_times(FILE *f, const char *name, const ocr_times *t, uint64_t combine) {
    fprintf(f,
            "\"%s\": {\"t_kernels_ms\": %.6f, \"t_gpu_tutorial_ms\": %.6f, \"t_gpu_ms\": %.6f, "
            "\"h2d_ms\": %.6f, \"d2h_ms\": %.6f, \"wall_ms\": %.6f, \"combine_ms\": %.6f}",
            name, ocr_ms(t->kernels_ns), ocr_ms(t->resident_ns), ocr_ms(t->gpu_ns),
            ocr_ms(t->h2d_ns), ocr_ms(t->d2h_ns), ocr_ms(t->wall_ns), ocr_ms(combine));
}

static void json(FILE *f, const ocr_report_info *ri, const ocr_split_result *r) {
    size_t es = ocr_type_size(r->type);
    char v[64];
    ocr_json_open(f, "split", ri, r->type, r->op, r->n);
    fprintf(f, ", \"devices\": %u, \"shares\": \"%s\", \"result\": ", r->nparts,
            ocr_shares_name(r->shares));
    ocr_report_quoted(f, OCR_FORMAT_JSON, ocr_value_str(r->type, r->result, v, sizeof v));
    fputs(", \"expected\": ", f);
    ocr_report_quoted(f, OCR_FORMAT_JSON, ocr_value_str(r->type, r->expected, v, sizeof v));
    fprintf(f, ", \"exact\": %s, \"passed\": %s, \"bad_run\": %u, \"repetitions\": %u, ",
            r->exact ? "true" : "false", r->passed ? "true" : "false", r->bad_run, r->repeats);
    fputs("\"err_ulps\": ", f);
    ocr_json_num(f, r->err_ulps);
    fputs(", \"bandwidth_gbs\": ", f);
    ocr_json_num(f, ocr_ratio(r->elems_read * es, r->median.kernels_ns));
    fputs(", \"bandwidth_e2e_gbs\": ", f);
    ocr_json_num(f, ocr_ratio(r->n * es, r->median.gpu_ns));
    fputs(", ", f);
    json_times(f, "median", &r->median, r->combine_ns);
    fputs(", ", f);
    json_times(f, "min", &r->min, r->combine_ns);
    fputs(", \"parts\": [", f);
    for (unsigned i = 0; i < r->nparts; ++i) {
        const ocr_split_part *p = &r->part[i];
        fprintf(f,
                "%s\n{\"platform_index\": %d, \"device_index\": %d, \"offset\": %llu, "
                "\"elements\": %llu, \"share\": %.6f, \"probe_gbs\": ",
                i ? "," : "", p->choice.platform, p->choice.device, (unsigned long long)p->offset,
                (unsigned long long)p->count, (double)p->count / (double)r->n);
        ocr_json_num(f, p->probe_gbs);
        fputs(", \"report\": ", f);
        if (p->count && p->res.runs) { /* the single-device report of its share */
            ocr_report_info pi = *ri;
            pi.json_runs = 0, pi.csv_header = 0, pi.passes = 0;
            pi.tuning = p->tuning[0] ? p->tuning : NULL;
            ocr_report(f, OCR_FORMAT_JSON, p->dev, p->kernel, &pi, &p->res);
        } else {
            fputs("null", f);
        }
        fputc('}', f);
    }
    fputs("]}\n", f);
}

void ocr_split_report(FILE *f, ocr_format fmt, const ocr_report_info *ri,
                      const ocr_split_result *r) {
    if (fmt == OCR_FORMAT_JSON)
        json(f, ri, r);
    else
        text(f, ri, r);
}
