/* The base layers build without OpenCL (../DESIGN: "Layers"): no source or
 * header of framework/core, search, db or reports includes an OpenCL header
 * or a skytune header other than skytune/plugin_types.h (skytune/plugin.h
 * brings in CL/cl.h). Their meson.build files leave OpenCL out, but the
 * OpenCL headers lie in the system's include folder, where a stray include
 * would still compile; this reads the includes instead. */
#include <criterion/criterion.h>

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static bool starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* The path a line includes ("CL/cl.h" of `#include <CL/cl.h>`), written to
 * path; false for a line that is no #include. */
static bool included_path(const char *line, char *path, size_t len)
{
    const char *p = line;
    while (*p == ' ' || *p == '\t') p++;
    if (*p++ != '#') return false;
    while (*p == ' ' || *p == '\t') p++;
    if (!starts_with(p, "include")) return false;
    p += strlen("include");
    while (*p == ' ' || *p == '\t') p++;
    char close = *p == '<' ? '>' : *p == '"' ? '"' : '\0';
    if (!close) return false;
    const char *start = ++p;
    const char *end = strchr(start, close);
    if (!end || (size_t)(end - start) >= len) return false;
    memcpy(path, start, (size_t)(end - start));
    path[end - start] = '\0';
    return true;
}

/* Whether the base layers may include `path`. */
static bool allowed(const char *path)
{
    if (starts_with(path, "CL/") || starts_with(path, "OpenCL/")) return false;
    if (starts_with(path, "skytune/")) return strcmp(path, "skytune/plugin_types.h") == 0;
    return true;
}

typedef struct scan {
    size_t files;
    char offenders[4096];
} scan;

static void scan_file(const char *file, scan *s)
{
    FILE *f = fopen(file, "r");
    cr_assert_not_null(f, "cannot read %s", file);
    s->files++;
    char line[4096], path[512];
    for (int number = 1; fgets(line, sizeof line, f); number++) {
        if (!included_path(line, path, sizeof path) || allowed(path)) continue;
        size_t used = strlen(s->offenders);
        snprintf(s->offenders + used, sizeof s->offenders - used, "\n  %s:%d includes %s", file,
                 number, path);
    }
    fclose(f);
}

static void scan_tree(const char *dir, scan *s)
{
    DIR *d = opendir(dir);
    cr_assert_not_null(d, "cannot open %s", dir);
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat info;
        cr_assert_eq(stat(path, &info), 0, "cannot stat %s", path);
        if (S_ISDIR(info.st_mode))
            scan_tree(path, s);
        else if (ends_with(path, ".c") || ends_with(path, ".h"))
            scan_file(path, s);
    }
    closedir(d);
}

Test(base_layers, include_neither_opencl_nor_plugin_h)
{
    const char *source = getenv("SKYTUNE_SOURCE_DIR");
    cr_assert_not_null(source, "SKYTUNE_SOURCE_DIR is not set: run through meson test");
    const char *layers[] = {"framework/core", "search", "db", "reports"};
    scan s = {0};
    for (size_t k = 0; k < sizeof layers / sizeof *layers; k++) {
        char dir[4096];
        snprintf(dir, sizeof dir, "%s/%s", source, layers[k]);
        size_t before = s.files;
        scan_tree(dir, &s);
        cr_assert_gt(s.files, before, "no .c or .h file in %s", dir);
    }
    cr_assert_eq(s.offenders[0], '\0',
                 "the base layers build without OpenCL; take the plugin ABI's types from "
                 "<skytune/plugin_types.h>:%s",
                 s.offenders);
}

/* The reading above finds the includes it is there to find. */
Test(base_layers, the_check_finds_each_form_of_include)
{
    char path[512];
    const char *refused[] = {"#include <CL/cl.h>", "  #  include \"CL/opencl.h\"",
                             "#include <OpenCL/opencl.h>", "#include <skytune/plugin.h>",
                             "#\tinclude \"skytune/plugin_checks.h\""};
    for (size_t k = 0; k < sizeof refused / sizeof *refused; k++) {
        cr_assert(included_path(refused[k], path, sizeof path), "%s", refused[k]);
        cr_expect_not(allowed(path), "%s", refused[k]);
    }
    cr_assert(included_path("#include <skytune/plugin_types.h>", path, sizeof path));
    cr_expect(allowed(path));
    cr_assert(included_path("#include \"error.h\"", path, sizeof path));
    cr_expect(allowed(path));
    cr_expect_not(included_path("/* #include <CL/cl.h> is not wanted here */", path, sizeof path));
}
