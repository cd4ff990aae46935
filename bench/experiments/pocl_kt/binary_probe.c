/* What PoCL does for a program binary: one configuration of a kernel file
 * built from source, its binary asked for (CL_PROGRAM_BINARIES) or a binary
 * loaded, then two launches, each step's CPU time (the process's, PoCL's
 * threads included). docs/benchmarks.md, "PoCL: asking for the program
 * binary", has the figures; binary_keeping.h the conclusion.
 *   cc -O1 -o binary_probe binary_probe.c -lOpenCL
 *   POCL_CACHE_DIR=$(mktemp -d) ./binary_probe MODE matmul.cl 16 1
 * MODE: source (build, launch), binary (build, ask for the binary and write
 * it to binary_probe.bin, launch), load (create the program from
 * binary_probe.bin, launch). The kernel is examples/t1/matmul.cl at
 * 256 x 256, block_size and work_per_x from the arguments. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
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

static unsigned char *slurp(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    unsigned char *s = malloc((size_t)n + 1);
    if (s && fread(s, 1, (size_t)n, f) != (size_t)n) n = 0;
    fclose(f);
    if (s) s[n] = '\0';
    *size = (size_t)n;
    return s;
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: binary_probe source|binary|load KERNEL.cl BLOCK_SIZE WORK_PER_X\n");
        return 2;
    }
    const char *mode = argv[1];
    int bs = atoi(argv[3]), wpx = atoi(argv[4]), n = 256;
    cl_platform_id platform;
    cl_device_id dev;
    cl_int rc;
    clGetPlatformIDs(1, &platform, NULL);
    clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &dev, NULL);
    cl_context cx = clCreateContext(NULL, 1, &dev, NULL, NULL, &rc);
    cl_command_queue q = clCreateCommandQueue(cx, dev, 0, &rc);
    char options[256];
    snprintf(options, sizeof options, "-cl-std=CL1.2 -D block_size=%d -D work_per_x=%d", bs, wpx);
    size_t size;
    cl_program program;
    double t = cpu_s();
    if (strcmp(mode, "load") == 0) {
        const unsigned char *binary = slurp("binary_probe.bin", &size);
        if (!binary) return perror("binary_probe.bin"), 1;
        program = clCreateProgramWithBinary(cx, 1, &dev, &size, &binary, NULL, &rc);
    } else {
        const char *source = (const char *)slurp(argv[2], &size);
        if (!source) return perror(argv[2]), 1;
        program = clCreateProgramWithSource(cx, 1, &source, NULL, &rc);
    }
    rc = clBuildProgram(program, 1, &dev, options, NULL, NULL);
    printf("build        %.3f s (%d)\n", cpu_s() - t, rc);
    if (strcmp(mode, "binary") == 0) {
        t = cpu_s();
        clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL);
        unsigned char *binary = malloc(size);
        clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof binary, &binary, NULL);
        printf("binary       %.3f s (%zu bytes)\n", cpu_s() - t, size);
        FILE *f = fopen("binary_probe.bin", "wb");
        if (!f || fwrite(binary, 1, size, f) != size) return perror("binary_probe.bin"), 1;
        fclose(f);
    }
    size_t bytes = (size_t)n * n * sizeof(float);
    cl_mem a = clCreateBuffer(cx, 0, bytes, NULL, &rc), b = clCreateBuffer(cx, 0, bytes, NULL, &rc),
           c = clCreateBuffer(cx, 0, bytes, NULL, &rc);
    cl_kernel k = clCreateKernel(program, "matmul", &rc);
    clSetKernelArg(k, 0, sizeof a, &a);
    clSetKernelArg(k, 1, sizeof b, &b);
    clSetKernelArg(k, 2, sizeof c, &c);
    clSetKernelArg(k, 3, (size_t)bs * bs * sizeof(float), NULL);
    clSetKernelArg(k, 4, (size_t)bs * bs * wpx * sizeof(float), NULL);
    clSetKernelArg(k, 5, sizeof n, &n);
    clSetKernelArg(k, 6, sizeof n, &n);
    size_t global[2] = {(size_t)n / wpx, (size_t)n}, local[2] = {(size_t)bs, (size_t)bs};
    for (int launch = 1; launch <= 2; launch++) {
        t = cpu_s();
        rc = clEnqueueNDRangeKernel(q, k, 2, NULL, global, local, 0, NULL, NULL);
        clFinish(q);
        printf("launch %d     %.3f s (%d)\n", launch, cpu_s() - t, rc);
    }
    return 0;
}
