/* How much of a GPU driver's build is per program rather than per kernel:
 * dedispersion configurations of the `small` preset (64 channels, 256
 * samples, 8 DMs) built one program each, then several configurations per
 * program (each copy of the source under its own #define lines and kernel
 * name), the process's CPU seconds and wall seconds for each; then the cost
 * of loading one program's binary. Issue 26's dedispersion campaign is
 * compile-bound: if most of a build is per program, building configurations
 * together is what would bring it under its target.
 *   cc -O1 -o nv_batch_probe nv_batch_probe.c -lOpenCL
 *   ./nv_batch_probe plugins/dedispersion/dedispersion.cl "NVIDIA" 64 1,2,4,8,16
 * A batch size written tN instead (t1,t4,t14) builds one configuration per
 * program on N threads sharing the process's one context: whether the
 * driver builds in parallel within a process, which would let compile
 * workers share a context instead of creating one each.
 * The second argument picks the platform by a part of its name; each batch
 * size builds its own COUNT configurations of the shuffled space. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double cpu_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

static double wall_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *s = malloc((size_t)n + 1);
    if (s && fread(s, 1, (size_t)n, f) != (size_t)n) n = 0;
    fclose(f);
    if (s) s[n] = '\0';
    return s;
}

typedef struct config {
    int wi_samples, wi_dms, el_samples, el_dms, local_mem, unroll;
} config;

enum { CHANNELS = 64, SAMPLES = 256, DMS = 8, SPREAD = 64, MAX_CONFIGS = 4096 };

static int enumerate(config *out)
{
    static const int wis[] = {16, 25, 32, 50, 64, 100, 125, 128, 250, 256, 500, 512, 1000, 1024};
    static const int wid[] = {1, 2, 4, 8, 16, 32}, els[] = {1, 2, 4, 5, 8, 10, 16, 20, 25};
    static const int eld[] = {1, 2, 4, 8}, unr[] = {1, 4, 16};
    int n = 0;
    for (size_t a = 0; a < sizeof wis / sizeof *wis; a++)
        for (size_t b = 0; b < sizeof wid / sizeof *wid; b++)
            for (size_t c = 0; c < sizeof els / sizeof *els; c++)
                for (size_t d = 0; d < sizeof eld / sizeof *eld; d++)
                    for (int lm = 0; lm <= 1; lm++)
                        for (size_t u = 0; u < sizeof unr / sizeof *unr; u++) {
                            config k = {wis[a], wid[b], els[c], eld[d], lm, unr[u]};
                            if (k.wi_samples * k.wi_dms > 1024) continue;
                            if (SAMPLES % (k.wi_samples * k.el_samples)) continue;
                            if (DMS % (k.wi_dms * k.el_dms)) continue;
                            if (CHANNELS % k.unroll) continue;
                            if (k.local_mem && k.wi_dms * k.el_dms == 1) continue;
                            if (k.unroll * k.el_samples * k.el_dms > 256) continue;
                            if (n < MAX_CONFIGS) out[n++] = k;
                        }
    return n;
}

/* One copy of the source per configuration: its values as #define lines,
 * its kernel renamed, everything undefined after it. */
static char *batch_source(const char *source, const config *k, int count)
{
    size_t cap = (strlen(source) + 1024) * (size_t)count + 1, used = 0;
    char *s = malloc(cap);
    for (int i = 0; i < count; i++) {
        used += (size_t)snprintf(
            s + used, cap - used,
            "#define wi_samples %d\n#define wi_dms %d\n#define el_samples %d\n"
            "#define el_dms %d\n#define local_mem %d\n#define unroll %d\n"
            "#define MAX_TILE_SPAN %d\n#define dedisperse dedisperse_%d\n%s\n"
            "#undef wi_samples\n#undef wi_dms\n#undef el_samples\n#undef el_dms\n"
            "#undef local_mem\n#undef unroll\n#undef MAX_TILE_SPAN\n#undef dedisperse\n"
            "#undef TILE_SAMPLES\n#undef TILE_DMS\n",
            k[i].wi_samples, k[i].wi_dms, k[i].el_samples, k[i].el_dms, k[i].local_mem,
            k[i].unroll, k[i].wi_samples * k[i].el_samples + SPREAD, i, source);
    }
    return s;
}

typedef struct build_job {
    cl_context cx;
    cl_device_id dev;
    const char *source, *options;
    const config *slice;
    int first, step, count, failed;
} build_job;

static void *build_some(void *arg)
{
    build_job *j = arg;
    for (int i = j->first; i < j->count; i += j->step) {
        char *text = batch_source(j->source, j->slice + i, 1);
        const char *ctext = text;
        cl_int rc;
        cl_program p = clCreateProgramWithSource(j->cx, 1, &ctext, NULL, &rc);
        if (clBuildProgram(p, 1, &j->dev, j->options, NULL, NULL) != CL_SUCCESS) j->failed++;
        clReleaseProgram(p);
        free(text);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: nv_batch_probe KERNEL.cl PLATFORM COUNT BATCHES\n");
        return 2;
    }
    char *source = slurp(argv[1]);
    if (!source) return perror(argv[1]), 1;
    int count = atoi(argv[3]);
    cl_platform_id platforms[16];
    cl_uint np = 0;
    clGetPlatformIDs(16, platforms, &np);
    cl_platform_id platform = NULL;
    for (cl_uint i = 0; i < np; i++) {
        char name[256];
        clGetPlatformInfo(platforms[i], CL_PLATFORM_NAME, sizeof name, name, NULL);
        if (strstr(name, argv[2])) platform = platforms[i];
    }
    if (!platform) return fprintf(stderr, "no platform named %s\n", argv[2]), 1;
    cl_device_id dev;
    cl_int rc;
    clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &dev, NULL);
    cl_context cx = clCreateContext(NULL, 1, &dev, NULL, NULL, &rc);
    static config all[MAX_CONFIGS];
    int total = enumerate(all);
    srand(26);
    for (int i = total - 1; i > 0; i--) {
        int j = rand() % (i + 1);
        config t = all[i];
        all[i] = all[j];
        all[j] = t;
    }
    if (count > total) count = total;
    printf("%d valid configurations, %d built per batch size\n", total, count);
    char options[256];
    snprintf(options, sizeof options,
             "-cl-std=CL1.2 -D channels=%d -D samples=%d -D dms=%d -D IN_STRIDE=%d", CHANNELS,
             SAMPLES, DMS, SAMPLES + SPREAD);
    /* An empty kernel: the part of a build no source pays for. */
    {
        const char *empty = "__kernel void nothing(void) {}";
        double c = cpu_s(), w = wall_s();
        for (int i = 0; i < 5; i++) {
            cl_program p = clCreateProgramWithSource(cx, 1, &empty, NULL, &rc);
            char opt[300];
            snprintf(opt, sizeof opt, "%s -D salt=%d", options, i);
            rc = clBuildProgram(p, 1, &dev, opt, NULL, NULL);
            clReleaseProgram(p);
        }
        printf("empty kernel: %.1f ms CPU, %.1f ms wall per build\n", (cpu_s() - c) * 200,
               (wall_s() - w) * 200);
    }
    /* Each batch size builds its own slice of the shuffled space, so that no
     * driver cache serves one pass what an earlier pass built. */
    int offset = 0;
    for (char *b = strtok(argv[4], ","); b; b = strtok(NULL, ","), offset += count) {
        if (offset + count > total) offset = 0;
        config *slice = all + offset;
        if (b[0] == 't') {
            int threads = atoi(b + 1);
            if (threads < 1 || threads > 64) threads = 1;
            pthread_t tid[64];
            build_job jobs[64];
            double c = cpu_s(), w = wall_s();
            for (int t = 0; t < threads; t++) {
                jobs[t] = (build_job){cx, dev, source, options, slice, t, threads, count, 0};
                pthread_create(&tid[t], NULL, build_some, &jobs[t]);
            }
            int failed = 0;
            for (int t = 0; t < threads; t++) {
                pthread_join(tid[t], NULL);
                failed += jobs[t].failed;
            }
            printf("%2d threads: %6.1f ms CPU per configuration, %6.2f s wall for %d "
                   "(%d failed)\n",
                   threads, (cpu_s() - c) * 1000 / count, wall_s() - w, count, failed);
            fflush(stdout);
            continue;
        }
        int batch = atoi(b);
        double c = cpu_s(), w = wall_s(), load_cpu = 0;
        int failed = 0;
        size_t binary_bytes = 0;
        for (int first = 0; first < count; first += batch) {
            int n = count - first < batch ? count - first : batch;
            char *text = batch_source(source, slice + first, n);
            const char *ctext = text;
            cl_program p = clCreateProgramWithSource(cx, 1, &ctext, NULL, &rc);
            rc = clBuildProgram(p, 1, &dev, options, NULL, NULL);
            if (rc != CL_SUCCESS) {
                failed++;
                if (failed == 1) {
                    char log[4096] = "";
                    clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
                    fprintf(stderr, "batch %d failed (%d): %.1000s\n", batch, rc, log);
                }
            } else if (first == 0) {
                /* What a measuring worker pays to load this program. */
                size_t size;
                clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL);
                unsigned char *bin = malloc(size);
                clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof bin, &bin, NULL);
                binary_bytes = size;
                double lc = cpu_s();
                const unsigned char *cbin = bin;
                cl_program q = clCreateProgramWithBinary(cx, 1, &dev, &size, &cbin, NULL, &rc);
                clBuildProgram(q, 1, &dev, options, NULL, NULL);
                cl_kernel k = clCreateKernel(q, "dedisperse_0", &rc);
                load_cpu = cpu_s() - lc;
                clReleaseKernel(k);
                clReleaseProgram(q);
                free(bin);
            }
            clReleaseProgram(p);
            free(text);
        }
        double cs = cpu_s() - c, ws = wall_s() - w;
        printf("batch %2d: %6.1f ms CPU, %6.1f ms wall per configuration (%d programs, %d "
               "failed); binary %zu bytes, loaded in %.1f ms CPU\n",
               batch, cs * 1000 / count, ws * 1000 / count, (count + batch - 1) / batch, failed,
               binary_bytes, load_cpu * 1000);
        fflush(stdout);
    }
    return 0;
}
