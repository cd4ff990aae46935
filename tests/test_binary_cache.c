/* The on-disk program-binary cache: keys that change with every input,
 * entries that round-trip (binaries and build failures), damaged files read
 * as misses and removed, concurrent writers that never expose half an
 * entry, the size limit removing the least recently used entries, a store
 * that cannot write saying why, and `clear` leaving foreign files alone.
 * Then the measurer with the trivial plugin on PoCL: a second measurer
 * loads the binary instead of compiling, a compile failure comes back from
 * the cache with the same message, a binary the driver refuses is rebuilt
 * and replaced, measurer_compile fills the cache for a later measurement,
 * and an entry that cannot be stored fails no measurement. Last, `skytune
 * cache`, and a run whose cache cannot be written, which says so and
 * counts it. Every test works in a fresh temporary folder, never the
 * user's cache. */
#include <criterion/criterion.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "binary_cache.h"
#include "binary_keeping.h"
#include "cl_device.h"
#include "cli_harness.h"
#include "hostile_harness.h"
#include "measurer.h"
#include "trivial_plugin.h"

/* ------------------------------------------------------------ fixtures */

static char *scratch;    /* this test's temporary folder */
static char *cache_dir;  /* scratch/cache/binaries: not there until a store */

static void make_scratch(void)
{
    scratch = cli_make_temp_dir();
    cache_dir = cli_path(scratch, "cache/binaries");
}

static void remove_scratch(void)
{
    cli_remove_tree(scratch);
    free(scratch);
    free(cache_dir);
    scratch = cache_dir = NULL;
}

static skytune_device_info test_device(void)
{
    skytune_device_info dev = {0};
    snprintf(dev.platform, sizeof dev.platform, "Portable Computing Language");
    snprintf(dev.name, sizeof dev.name, "pthread-haswell");
    snprintf(dev.opencl_version, sizeof dev.opencl_version, "OpenCL 3.0 PoCL");
    snprintf(dev.driver_version, sizeof dev.driver_version, "3.1");
    return dev;
}

static binary_cache_key make_key(const skytune_device_info *dev, const char *source,
                                 const char *options)
{
    binary_cache_key key;
    skytune_error err = {0};
    cr_assert_eq(binary_cache_key_make(dev, source, options, &key, &err), 0, "%s", err.message);
    return key;
}

static binary_cache_key simple_key(const char *source)
{
    skytune_device_info dev = test_device();
    return make_key(&dev, source, "-cl-std=CL1.2 -D wg=64");
}

static binary_cache *open_cache(uint64_t max_bytes)
{
    binary_cache *c;
    skytune_error err = {0};
    cr_assert_eq(binary_cache_open(cache_dir, max_bytes, &c, &err), 0, "%s", err.message);
    return c;
}

static char *entry_path(const binary_cache_key *key)
{
    char name[BINARY_CACHE_NAME_LEN + 8];
    snprintf(name, sizeof name, "%s.bin", key->name);
    return cli_path(cache_dir, name);
}

/* size bytes: the size itself (8 bytes, little endian), then `fill`, so
 * that a reader can tell a whole payload from part of one. */
static unsigned char *payload(size_t size, unsigned char fill)
{
    cr_assert(size >= 8);
    unsigned char *p = malloc(size);
    cr_assert_not_null(p);
    for (int k = 0; k < 8; k++) p[k] = (unsigned char)((uint64_t)size >> (8 * k));
    memset(p + 8, fill, size - 8);
    return p;
}

/* Whether bytes are one whole payload(size, fill) for some fill in 1..max. */
static bool whole_payload(const unsigned char *bytes, size_t size, unsigned max_fill)
{
    if (size < 9) return false;
    uint64_t recorded = 0;
    for (int k = 7; k >= 0; k--) recorded = (recorded << 8) | bytes[k];
    if (recorded != size || bytes[8] < 1 || bytes[8] > max_fill) return false;
    for (size_t k = 9; k < size; k++)
        if (bytes[k] != bytes[8]) return false;
    return true;
}

static void store_payload(binary_cache *c, const binary_cache_key *key, size_t size,
                          unsigned char fill)
{
    unsigned char *p = payload(size, fill);
    skytune_error err = {0};
    cr_assert_eq(binary_cache_store_binary(c, key, p, size, &err), 0, "%s", err.message);
    free(p);
}

static int load(binary_cache *c, const binary_cache_key *key, binary_cache_entry *entry)
{
    skytune_error err = {0};
    int found = binary_cache_load(c, key, entry, &err);
    cr_assert_neq(found, -1, "%s", err.message);
    return found;
}

static void set_mtime(const char *path, time_t seconds)
{
    struct timespec times[2] = {{seconds, 0}, {seconds, 0}};
    cr_assert_eq(utimensat(AT_FDCWD, path, times, 0), 0, "%s: %s", path, strerror(errno));
}

static time_t mtime_of(const char *path)
{
    struct stat st;
    cr_assert_eq(stat(path, &st), 0, "%s: %s", path, strerror(errno));
    return st.st_mtim.tv_sec;
}

/* The folder's entries and their bytes, as most tests count them. */
static int usage_of(const char *dir, uint64_t *entries, uint64_t *bytes, skytune_error *err)
{
    binary_cache_folder_usage u;
    int rc = binary_cache_usage(dir, &u, err);
    *entries = u.entries;
    *bytes = u.bytes;
    return rc;
}

static int clear_of(const char *dir, uint64_t *removed, uint64_t *bytes, skytune_error *err)
{
    binary_cache_folder_usage u;
    int rc = binary_cache_clear(dir, &u, err);
    *removed = u.entries;
    *bytes = u.bytes;
    return rc;
}

/* ------------------------------------------------------------ keys */

TestSuite(binary_cache, .init = make_scratch, .fini = remove_scratch);

Test(binary_cache, key_changes_with_every_input)
{
    const char *source = "__kernel void k(__global float *x) { x[0] = 1.0f; }";
    const char *options = "-cl-std=CL1.2 -D wg=64";
    skytune_device_info base = test_device();
    enum { N_VARIANTS = 7 };
    binary_cache_key keys[N_VARIANTS];
    keys[0] = make_key(&base, source, options);
    skytune_device_info dev = base;
    snprintf(dev.platform, sizeof dev.platform, "NVIDIA CUDA");
    keys[1] = make_key(&dev, source, options);
    dev = base;
    snprintf(dev.name, sizeof dev.name, "NVIDIA H100 80GB HBM3");
    keys[2] = make_key(&dev, source, options);
    dev = base;
    snprintf(dev.driver_version, sizeof dev.driver_version, "3.2");
    keys[3] = make_key(&dev, source, options);
    dev = base;
    snprintf(dev.opencl_version, sizeof dev.opencl_version, "OpenCL 1.2 PoCL");
    keys[4] = make_key(&dev, source, options);
    keys[5] = make_key(&base, "__kernel void k(__global float *x) { x[0] = 2.0f; }", options);
    keys[6] = make_key(&base, source, "-cl-std=CL1.2 -D wg=32");
    for (int a = 0; a < N_VARIANTS; a++) {
        cr_assert_eq(strlen(keys[a].name), BINARY_CACHE_NAME_LEN);
        cr_assert_eq(strspn(keys[a].name, "0123456789abcdef"), BINARY_CACHE_NAME_LEN,
                     "not lowercase hex: %s", keys[a].name);
        for (int b = a + 1; b < N_VARIANTS; b++) {
            cr_assert_str_neq(keys[a].name, keys[b].name, "variants %d and %d share a name", a, b);
            cr_assert_str_neq(keys[a].text, keys[b].text, "variants %d and %d share a key", a, b);
        }
    }
    /* The same inputs make the same key, in this process or any other. */
    binary_cache_key again = make_key(&base, source, options);
    cr_assert_str_eq(again.name, keys[0].name);
    cr_assert_str_eq(again.text, keys[0].text);
    cr_assert_eq(again.text_len, strlen(again.text));
    binary_cache_key_clear(&again);
    for (int a = 0; a < N_VARIANTS; a++) binary_cache_key_clear(&keys[a]);
}

Test(binary_cache, key_fields_do_not_run_into_each_other)
{
    skytune_device_info ab_c = test_device(), a_bc = test_device();
    snprintf(ab_c.platform, sizeof ab_c.platform, "ab");
    snprintf(ab_c.name, sizeof ab_c.name, "c");
    snprintf(a_bc.platform, sizeof a_bc.platform, "a");
    snprintf(a_bc.name, sizeof a_bc.name, "bc");
    binary_cache_key one = make_key(&ab_c, "s", "o"), two = make_key(&a_bc, "s", "o");
    cr_assert_str_neq(one.name, two.name);
    binary_cache_key_clear(&one);
    binary_cache_key_clear(&two);
}

/* What the source includes is compiled too: a header found through -I,
 * one it includes in turn beside itself, and a header not there yet (which
 * the compiler would find once it is created) all change the key. */
Test(binary_cache, key_changes_with_every_included_file)
{
    char *inc = cli_path(scratch, "inc");
    cr_assert_eq(mkdir(inc, 0700), 0);
    char *outer = cli_path(inc, "outer.h"), *inner = cli_path(inc, "inner.h");
    cli_write_file(outer, "#include \"inner.h\"\n#define OUTER 1\n", 34);
    cli_write_file(inner, "#define INNER 1\n", 16);
    const char *source = "#include \"outer.h\"\n"
                         "  #  include <later.h>\n"
                         "__kernel void k(__global float *x) { x[0] = OUTER + INNER; }";
    char options[4200];
    snprintf(options, sizeof options, "-cl-std=CL1.2 -I %s", inc);
    skytune_device_info dev = test_device();
    binary_cache_key before = make_key(&dev, source, options);
    binary_cache_key same = make_key(&dev, source, options);
    cr_assert_str_eq(before.name, same.name, "the same files make the same key");
    binary_cache_key_clear(&same);

    cli_write_file(inner, "#define INNER 2\n", 16);
    binary_cache_key inner_changed = make_key(&dev, source, options);
    cr_assert_str_neq(inner_changed.name, before.name, "a header's own include changed");

    char *later = cli_path(inc, "later.h");
    cli_write_file(later, "\n", 1);
    binary_cache_key created = make_key(&dev, source, options);
    cr_assert_str_neq(created.name, inner_changed.name, "a missing header was created");

    /* A FIFO where a header was is counted by its kind, never opened (an
     * open would block this test forever). */
    cr_assert_eq(unlink(later), 0);
    cr_assert_eq(mkfifo(later, 0600), 0);
    binary_cache_key fifo = make_key(&dev, source, options);
    cr_assert_str_neq(fifo.name, created.name);

    /* Without the -I the headers are not found: another key again. */
    binary_cache_key no_search = make_key(&dev, source, "-cl-std=CL1.2");
    cr_assert_str_neq(no_search.name, fifo.name);
    binary_cache_key_clear(&before);
    binary_cache_key_clear(&inner_changed);
    binary_cache_key_clear(&created);
    binary_cache_key_clear(&fifo);
    binary_cache_key_clear(&no_search);
    free(later);
    free(inner);
    free(outer);
    free(inc);
}

/* ------------------------------------------------------------ entries */

Test(binary_cache, binary_round_trip_in_a_private_folder)
{
    binary_cache *c = open_cache(0);
    cr_assert_str_eq(binary_cache_dir(c), cache_dir);
    binary_cache_key key = simple_key("one"), other = simple_key("two");
    binary_cache_entry entry;
    cr_assert_eq(load(c, &key, &entry), BINARY_CACHE_MISS, "a folder not yet made is empty");
    cr_assert_null(entry.binary);

    store_payload(c, &key, 100000, 7);
    struct stat st;
    cr_assert_eq(stat(cache_dir, &st), 0, "the first store makes the folder");
    cr_assert_eq(st.st_mode & 0777, 0700);
    char *parent = cli_path(scratch, "cache");
    cr_assert_eq(stat(parent, &st), 0);
    cr_assert_eq(st.st_mode & 0777, 0700, "parents are private too");
    free(parent);

    cr_assert_eq(load(c, &key, &entry), BINARY_CACHE_BINARY);
    cr_assert_eq(entry.binary_size, 100000);
    cr_assert(whole_payload(entry.binary, entry.binary_size, 7));
    cr_assert_eq(entry.binary[8], 7);
    binary_cache_entry_clear(&entry);
    cr_assert_eq(load(c, &other, &entry), BINARY_CACHE_MISS);

    /* A store replaces the entry. */
    store_payload(c, &key, 5000, 3);
    cr_assert_eq(load(c, &key, &entry), BINARY_CACHE_BINARY);
    cr_assert_eq(entry.binary_size, 5000);
    cr_assert_eq(entry.binary[8], 3);
    binary_cache_entry_clear(&entry);

    binary_cache_counts n = binary_cache_get_counts(c);
    cr_assert_eq(n.stores, 2);
    cr_assert_eq(n.binary_hits, 2);
    cr_assert_eq(n.misses, 2);
    cr_assert_eq(n.errors, 0);
    cr_assert_str_eq(binary_cache_last_error(c), "");
    binary_cache_key_clear(&key);
    binary_cache_key_clear(&other);
    binary_cache_close(c);
}

Test(binary_cache, build_failures_round_trip)
{
    binary_cache *c = open_cache(0);
    binary_cache_key key = simple_key("#error no"), quiet = simple_key("#error quiet");
    skytune_error err = {0};
    const char *log = "error: <source>:1:2: no\n1 error generated.\n";
    cr_assert_eq(binary_cache_store_failure(c, &key, CL_BUILD_PROGRAM_FAILURE, log, &err), 0,
                 "%s", err.message);
    cr_assert_eq(binary_cache_store_failure(c, &quiet, CL_INVALID_BUILD_OPTIONS, "", &err), 0,
                 "%s", err.message);
    binary_cache_entry entry;
    cr_assert_eq(load(c, &key, &entry), BINARY_CACHE_FAILURE);
    cr_assert_eq(entry.build_status, CL_BUILD_PROGRAM_FAILURE);
    cr_assert_str_eq(entry.build_log, log);
    cr_assert_null(entry.binary);
    binary_cache_entry_clear(&entry);
    cr_assert_eq(load(c, &quiet, &entry), BINARY_CACHE_FAILURE);
    cr_assert_eq(entry.build_status, CL_INVALID_BUILD_OPTIONS);
    cr_assert_str_eq(entry.build_log, "");
    binary_cache_entry_clear(&entry);
    cr_assert_eq(binary_cache_get_counts(c).failure_hits, 2);
    binary_cache_key_clear(&key);
    binary_cache_key_clear(&quiet);
    binary_cache_close(c);
}

/* How an entry file gets damaged. */
typedef enum damage {
    TRUNCATED_HALF,
    TRUNCATED_INTO_HEADER,
    EMPTIED,
    PAYLOAD_BYTE_FLIPPED,
    LAST_BYTE_FLIPPED,
    KIND_CHANGED,
    FOREIGN_TEXT,
    DAMAGE_COUNT
} damage;

static void damage_file(const char *path, damage how)
{
    size_t len;
    unsigned char *bytes = cli_read_file(path, &len);
    cr_assert_not_null(bytes);
    switch (how) {
    case TRUNCATED_HALF: len /= 2; break;
    case TRUNCATED_INTO_HEADER: len = 10; break;
    case EMPTIED: len = 0; break;
    case PAYLOAD_BYTE_FLIPPED: bytes[len - 100] ^= 0x01; break;
    case LAST_BYTE_FLIPPED: bytes[len - 1] ^= 0x80; break;
    case KIND_CHANGED: bytes[12] ^= 0x03; break; /* binary (1) reads as failure (2) */
    case FOREIGN_TEXT:
        free(bytes);
        bytes = (unsigned char *)strdup("not a cache entry at all\n");
        len = strlen((char *)bytes);
        break;
    case DAMAGE_COUNT: break;
    }
    cli_write_file(path, bytes, len);
    free(bytes);
}

Test(binary_cache, damaged_entries_are_misses_and_removed)
{
    binary_cache *c = open_cache(0);
    binary_cache_key key = simple_key("fragile");
    char *path = entry_path(&key);
    for (int how = 0; how < DAMAGE_COUNT; how++) {
        store_payload(c, &key, 4096, 9);
        damage_file(path, (damage)how);
        binary_cache_entry entry;
        cr_assert_eq(load(c, &key, &entry), BINARY_CACHE_MISS, "damage %d read as an entry", how);
        cr_assert_null(entry.binary);
        cr_assert_null(entry.build_log);
        cr_assert_not(cli_file_exists(path), "damage %d: the file was left in place", how);
    }
    cr_assert_eq(binary_cache_get_counts(c).misses, DAMAGE_COUNT);
    cr_assert_eq(binary_cache_get_counts(c).errors, 0);
    free(path);
    binary_cache_key_clear(&key);
    binary_cache_close(c);
}

Test(binary_cache, an_entry_for_another_key_is_never_handed_back)
{
    /* What a hash collision would look like: a whole, valid entry of one
     * key under the name of another. */
    binary_cache *c = open_cache(0);
    binary_cache_key mine = simple_key("mine"), theirs = simple_key("theirs");
    store_payload(c, &theirs, 4096, 5);
    char *their_path = entry_path(&theirs), *my_path = entry_path(&mine);
    size_t len;
    unsigned char *bytes = cli_read_file(their_path, &len);
    cli_write_file(my_path, bytes, len);
    free(bytes);
    binary_cache_entry entry;
    cr_assert_eq(load(c, &mine, &entry), BINARY_CACHE_MISS);
    cr_assert_null(entry.binary);
    /* The miss's store then takes the name over. */
    store_payload(c, &mine, 2048, 6);
    cr_assert_eq(load(c, &mine, &entry), BINARY_CACHE_BINARY);
    cr_assert_eq(entry.binary[8], 6);
    binary_cache_entry_clear(&entry);
    free(their_path);
    free(my_path);
    binary_cache_key_clear(&mine);
    binary_cache_key_clear(&theirs);
    binary_cache_close(c);
}

/* ------------------------------------------------------------ concurrency */

#define WRITERS 4
#define ROUNDS 40

/* One writer process: stores the shared key and its own, and reads the
 * shared key back after each store. Exits 0 when every read was a whole
 * entry; a half-written file would read as damaged (a miss) or as a wrong
 * payload. */
static int writer(int id)
{
    binary_cache *c;
    skytune_error err = {0};
    if (binary_cache_open(cache_dir, 0, &c, &err) != 0) return 10;
    binary_cache_key shared = simple_key("shared"), own;
    char source[32];
    snprintf(source, sizeof source, "own %d", id);
    own = simple_key(source);
    int status = 0;
    for (int round = 0; round < ROUNDS && status == 0; round++) {
        size_t size = 20000 + 3000 * (size_t)id + (size_t)round;
        unsigned char *p = payload(size, (unsigned char)(id + 1));
        if (binary_cache_store_binary(c, &shared, p, size, &err) != 0 ||
            binary_cache_store_binary(c, &own, p, size, &err) != 0)
            status = 11;
        free(p);
        binary_cache_entry entry;
        int found = binary_cache_load(c, &shared, &entry, &err);
        if (status == 0 && found != BINARY_CACHE_BINARY) status = 12;
        if (status == 0 && !whole_payload(entry.binary, entry.binary_size, WRITERS)) status = 13;
        binary_cache_entry_clear(&entry);
    }
    binary_cache_key_clear(&shared);
    binary_cache_key_clear(&own);
    binary_cache_close(c);
    return status;
}

Test(binary_cache, concurrent_writers_leave_only_whole_entries)
{
    pid_t pids[WRITERS];
    for (int id = 0; id < WRITERS; id++) {
        pids[id] = fork();
        cr_assert_neq(pids[id], -1, "fork: %s", strerror(errno));
        if (pids[id] == 0) _exit(writer(id));
    }
    for (int id = 0; id < WRITERS; id++) {
        int status;
        cr_assert_eq(waitpid(pids[id], &status, 0), pids[id]);
        cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                  "writer %d saw a partial entry or failed (status %d)", id,
                  WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    }
    binary_cache *c = open_cache(0);
    binary_cache_key shared = simple_key("shared");
    binary_cache_entry entry;
    cr_assert_eq(load(c, &shared, &entry), BINARY_CACHE_BINARY);
    cr_assert(whole_payload(entry.binary, entry.binary_size, WRITERS));
    binary_cache_entry_clear(&entry);
    for (int id = 0; id < WRITERS; id++) {
        char source[32];
        snprintf(source, sizeof source, "own %d", id);
        binary_cache_key own = simple_key(source);
        cr_assert_eq(load(c, &own, &entry), BINARY_CACHE_BINARY);
        cr_assert(whole_payload(entry.binary, entry.binary_size, WRITERS));
        cr_assert_eq(entry.binary[8], id + 1, "writer %d's own entry holds another's", id);
        cr_assert_eq(entry.binary_size, 20000 + 3000 * (size_t)id + ROUNDS - 1,
                     "writer %d's own entry is not its last store", id);
        binary_cache_entry_clear(&entry);
        binary_cache_key_clear(&own);
    }
    /* Every temporary file was renamed into place. */
    uint64_t entries, bytes, removed;
    skytune_error err = {0};
    cr_assert_eq(usage_of(cache_dir, &entries, &bytes, &err), 0, "%s", err.message);
    cr_assert_eq(entries, WRITERS + 1);
    cr_assert_eq(clear_of(cache_dir, &removed, &bytes, &err), 0, "%s", err.message);
    DIR *d = opendir(cache_dir);
    cr_assert_not_null(d);
    struct dirent *de;
    while ((de = readdir(d)) != NULL)
        cr_assert(strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0,
                  "left behind: %s", de->d_name);
    closedir(d);
    binary_cache_key_clear(&shared);
    binary_cache_close(c);
}

/* ------------------------------------------------------------ the size limit */

Test(binary_cache, size_limit_evicts_the_least_recently_used)
{
    /* Keys of equal length and equal payloads: entries of one size. */
    binary_cache_key a = simple_key("kernel A"), b = simple_key("kernel B"),
                     cc = simple_key("kernel C"), d = simple_key("kernel D");
    binary_cache *probe = open_cache(0);
    store_payload(probe, &a, 10000, 1);
    binary_cache_close(probe);
    uint64_t entries, entry_size;
    skytune_error err = {0};
    cr_assert_eq(usage_of(cache_dir, &entries, &entry_size, &err), 0, "%s", err.message);
    cr_assert_eq(entries, 1);

    /* Room for three and a half entries. */
    binary_cache *c = open_cache(3 * entry_size + entry_size / 2);
    store_payload(c, &b, 10000, 2);
    store_payload(c, &cc, 10000, 3);
    char *pa = entry_path(&a), *pb = entry_path(&b), *pc = entry_path(&cc), *pd = entry_path(&d);
    set_mtime(pa, 1000000);
    set_mtime(pb, 2000000);
    set_mtime(pc, 3000000);
    /* Using A makes B the least recently used. */
    binary_cache_entry entry;
    cr_assert_eq(load(c, &a, &entry), BINARY_CACHE_BINARY);
    binary_cache_entry_clear(&entry);
    cr_assert_gt(mtime_of(pa), 3000000, "a load must mark the entry used");
    cr_assert_eq(binary_cache_get_counts(c).evicted, 0, "three entries fit");

    store_payload(c, &d, 10000, 4);
    cr_assert_not(cli_file_exists(pb), "the least recently used entry was kept");
    cr_assert(cli_file_exists(pa) && cli_file_exists(pc) && cli_file_exists(pd));
    cr_assert_eq(binary_cache_get_counts(c).evicted, 1, "only as many as needed go");
    cr_assert_eq(usage_of(cache_dir, &entries, &entry_size, &err), 0, "%s", err.message);
    cr_assert_eq(entries, 3);

    free(pa);
    free(pb);
    free(pc);
    free(pd);
    binary_cache_key_clear(&a);
    binary_cache_key_clear(&b);
    binary_cache_key_clear(&cc);
    binary_cache_key_clear(&d);
    binary_cache_close(c);
}

Test(binary_cache, the_limit_counts_entries_other_processes_stored)
{
    /* Another process filled the folder; this object's first store finds
     * it over the limit. */
    binary_cache *other = open_cache(0);
    for (int k = 0; k < 8; k++) {
        char source[16];
        snprintf(source, sizeof source, "other %d", k);
        binary_cache_key key = simple_key(source);
        store_payload(other, &key, 10000, 1);
        char *path = entry_path(&key);
        set_mtime(path, 1000000 + k);
        free(path);
        binary_cache_key_clear(&key);
    }
    binary_cache_close(other);
    binary_cache *c = open_cache(50000);
    binary_cache_key mine = simple_key("mine");
    store_payload(c, &mine, 10000, 2);
    uint64_t entries, bytes;
    skytune_error err = {0};
    cr_assert_eq(usage_of(cache_dir, &entries, &bytes, &err), 0, "%s", err.message);
    cr_assert_leq(bytes, 45000, "the folder is at most 90 %% of its limit after evicting");
    char *path = entry_path(&mine);
    cr_assert(cli_file_exists(path), "the newest entry is the last to go");
    free(path);
    cr_assert_eq(binary_cache_get_counts(c).evicted, 9 - entries);
    binary_cache_key_clear(&mine);
    binary_cache_close(c);
}

Test(binary_cache, no_limit_keeps_every_entry)
{
    binary_cache *c = open_cache(0);
    for (int k = 0; k < 20; k++) {
        char source[16];
        snprintf(source, sizeof source, "k%d", k);
        binary_cache_key key = simple_key(source);
        store_payload(c, &key, 50000, 1);
        binary_cache_key_clear(&key);
    }
    uint64_t entries, bytes;
    skytune_error err = {0};
    cr_assert_eq(usage_of(cache_dir, &entries, &bytes, &err), 0, "%s", err.message);
    cr_assert_eq(entries, 20);
    cr_assert_gt(bytes, 20 * 50000);
    cr_assert_eq(binary_cache_get_counts(c).evicted, 0);
    binary_cache_close(c);
}

/* Only entries this user alone could have written are read: a FIFO at an
 * entry's name is a miss at once (an open would wait for a writer), and so
 * are a link and an entry others may write; `clear` removes what lies at
 * entries' names, and `usage` counts it apart from the entries. */
Test(binary_cache, only_private_regular_entries_are_read)
{
    binary_cache *c = open_cache(0);
    binary_cache_key fifo = simple_key("fifo"), link = simple_key("link"),
                     shared = simple_key("shared");
    store_payload(c, &shared, 3000, 1);
    char *shared_path = entry_path(&shared);
    cr_assert_eq(chmod(shared_path, 0666), 0);
    char *fifo_path = entry_path(&fifo), *link_path = entry_path(&link);
    cr_assert_eq(mkfifo(fifo_path, 0600), 0);
    cr_assert_eq(symlink(shared_path, link_path), 0);

    binary_cache_entry entry;
    cr_assert_eq(load(c, &fifo, &entry), BINARY_CACHE_MISS);
    cr_assert_eq(load(c, &link, &entry), BINARY_CACHE_MISS);
    cr_assert_eq(load(c, &shared, &entry), BINARY_CACHE_MISS, "a group- and world-writable entry");
    cr_assert_eq(binary_cache_get_counts(c).untrusted, 2, "the FIFO and the writable entry");
    cr_assert(cli_file_exists(shared_path), "another's entry is not removed, only passed over");

    binary_cache_folder_usage u;
    skytune_error err = {0};
    cr_assert_eq(binary_cache_usage(cache_dir, &u, &err), 0, "%s", err.message);
    cr_assert_eq(u.entries, 1);
    cr_assert_eq(u.others, 2, "the FIFO and the link");
    cr_assert_eq(binary_cache_clear(cache_dir, &u, &err), 0, "%s", err.message);
    cr_assert_eq(u.entries, 1);
    cr_assert_eq(u.others, 2);
    cr_assert_not(cli_file_exists(fifo_path));
    struct stat st;
    cr_assert_neq(lstat(link_path, &st), 0, "clear removes the link itself");
    binary_cache_close(c);
    free(shared_path);
    free(fifo_path);
    free(link_path);
    binary_cache_key_clear(&fifo);
    binary_cache_key_clear(&link);
    binary_cache_key_clear(&shared);
}

/* A folder others can write, or a link, is not used at all: every load is
 * a miss and nothing is stored, whatever lies there. */
Test(binary_cache, a_folder_others_can_write_is_not_used)
{
    binary_cache *c = open_cache(0);
    binary_cache_key key = simple_key("planted");
    store_payload(c, &key, 3000, 1);
    binary_cache_close(c);
    cr_assert_eq(chmod(cache_dir, 0777), 0);
    c = open_cache(0);
    cr_assert_not_null(binary_cache_distrust(c));
    cr_assert(strstr(binary_cache_distrust(c), "can be written by other users (mode 0777)"),
              "%s", binary_cache_distrust(c));
    binary_cache_entry entry;
    cr_assert_eq(load(c, &key, &entry), BINARY_CACHE_MISS);
    unsigned char *p = payload(3000, 2);
    skytune_error err = {0};
    cr_assert_eq(binary_cache_store_binary(c, &key, p, 3000, &err), -1);
    free(p);
    binary_cache_close(c);

    char *link = cli_path(scratch, "link-to-cache");
    cr_assert_eq(chmod(cache_dir, 0700), 0);
    cr_assert_eq(symlink(cache_dir, link), 0);
    binary_cache *through_link;
    cr_assert_eq(binary_cache_open(link, 0, &through_link, &err), 0, "%s", err.message);
    cr_assert(binary_cache_distrust(through_link) &&
              strstr(binary_cache_distrust(through_link), "is a symbolic link"));
    cr_assert_eq(load(through_link, &key, &entry), BINARY_CACHE_MISS);
    binary_cache_close(through_link);
    free(link);
    binary_cache_key_clear(&key);
}

/* ------------------------------------------------------------ the folder */

Test(binary_cache, clear_removes_entries_and_nothing_else)
{
    binary_cache *c = open_cache(0);
    binary_cache_key one = simple_key("one"), two = simple_key("two");
    store_payload(c, &one, 3000, 1);
    store_payload(c, &two, 5000, 2);
    binary_cache_close(c);
    uint64_t entries, bytes;
    skytune_error err = {0};
    cr_assert_eq(usage_of(cache_dir, &entries, &bytes, &err), 0, "%s", err.message);
    cr_assert_eq(entries, 2);

    /* A writer's leftover temporary file goes; everything else stays. */
    char temp_name[64];
    snprintf(temp_name, sizeof temp_name, "%s.tmp-a1B2c3", one.name);
    char *temp = cli_path(cache_dir, temp_name);
    cli_write_file(temp, "partial", 7);
    const char *foreign[] = {
        "notes.txt",
        "0123456789abcdef0123456789abcdef.bin.bak",
        "0123456789ABCDEF0123456789ABCDEF.bin",  /* not lowercase: not a name the cache makes */
        "0123456789abcdef0123456789abcde.bin",   /* 31 digits */
    };
    size_t n_foreign = sizeof foreign / sizeof foreign[0];
    for (size_t k = 0; k < n_foreign; k++) {
        char *path = cli_path(cache_dir, foreign[k]);
        cli_write_file(path, "mine", 4);
        free(path);
    }
    char *subdir = cli_path(cache_dir, "fedcba9876543210fedcba9876543210.bin");
    cr_assert_eq(mkdir(subdir, 0700), 0);

    uint64_t removed, removed_bytes;
    cr_assert_eq(clear_of(cache_dir, &removed, &removed_bytes, &err), 0, "%s",
                 err.message);
    cr_assert_eq(removed, 2);
    cr_assert_eq(removed_bytes, bytes);
    cr_assert_not(cli_file_exists(temp));
    for (size_t k = 0; k < n_foreign; k++) {
        char *path = cli_path(cache_dir, foreign[k]);
        cr_assert(cli_file_exists(path), "clear removed %s", foreign[k]);
        free(path);
    }
    struct stat st;
    cr_assert(stat(subdir, &st) == 0 && S_ISDIR(st.st_mode), "clear removed a folder");
    cr_assert_eq(usage_of(cache_dir, &entries, &bytes, &err), 0, "%s", err.message);
    cr_assert_eq(entries, 0);
    cr_assert_eq(bytes, 0);
    free(temp);
    free(subdir);
    binary_cache_key_clear(&one);
    binary_cache_key_clear(&two);
}

Test(binary_cache, a_missing_folder_is_an_empty_cache)
{
    uint64_t entries = 7, bytes = 7, removed = 7;
    skytune_error err = {0};
    cr_assert_eq(usage_of(cache_dir, &entries, &bytes, &err), 0, "%s", err.message);
    cr_assert_eq(entries, 0);
    cr_assert_eq(bytes, 0);
    cr_assert_eq(clear_of(cache_dir, &removed, &bytes, &err), 0, "%s", err.message);
    cr_assert_eq(removed, 0);
    cr_assert_not(cli_file_exists(cache_dir), "neither makes the folder");
}

static void assert_default_dir(const char *expected)
{
    char *dir = NULL;
    skytune_error err = {0};
    cr_assert_eq(binary_cache_default_dir(&dir, &err), 0, "%s", err.message);
    cr_assert_str_eq(dir, expected);
    free(dir);
}

Test(binary_cache, default_folder_follows_the_environment)
{
    setenv("SKYTUNE_CACHE_DIR", "/srv/cache", 1);
    setenv("XDG_CACHE_HOME", "/xdg", 1);
    setenv("HOME", "/home/astro", 1);
    assert_default_dir("/srv/cache");
    setenv("SKYTUNE_CACHE_DIR", "", 1);
    assert_default_dir("/xdg/skytune/binaries");
    unsetenv("SKYTUNE_CACHE_DIR");
    assert_default_dir("/xdg/skytune/binaries");
    setenv("XDG_CACHE_HOME", "relative", 1); /* the XDG specification says to ignore it */
    assert_default_dir("/home/astro/.cache/skytune/binaries");
    unsetenv("XDG_CACHE_HOME");
    assert_default_dir("/home/astro/.cache/skytune/binaries");
    unsetenv("HOME");
    char *dir = NULL;
    skytune_error err = {0};
    cr_assert_eq(binary_cache_default_dir(&dir, &err), -1);
    cr_assert(strstr(err.message, "SKYTUNE_CACHE_DIR") != NULL, "%s", err.message);
}

Test(binary_cache, a_file_is_no_folder)
{
    char *file = cli_path(scratch, "plain");
    cli_write_file(file, "x", 1);
    binary_cache *c = NULL;
    skytune_error err = {0};
    cr_assert_eq(binary_cache_open(file, 0, &c, &err), -1);
    cr_assert(strstr(err.message, file) != NULL, "%s", err.message);
    cr_assert(strstr(err.message, "not a folder") != NULL, "%s", err.message);

    /* A folder under a file cannot be made: the store fails, names it, and
     * the cache says so afterwards. */
    char *below = cli_path(file, "binaries");
    cr_assert_eq(binary_cache_open(below, 0, &c, &err), 0, "%s", err.message);
    binary_cache_key key = simple_key("k");
    unsigned char *p = payload(64, 1);
    cr_assert_eq(binary_cache_store_binary(c, &key, p, 64, &err), -1);
    cr_assert(strstr(err.message, file) != NULL, "%s", err.message);
    cr_assert_str_eq(binary_cache_last_error(c), err.message);
    cr_assert_str_eq(binary_cache_store_reason(c), strerror(ENOTDIR));
    cr_assert_eq(binary_cache_get_counts(c).errors, 1);
    cr_assert_eq(binary_cache_get_counts(c).stores, 0);
    free(p);
    binary_cache_key_clear(&key);
    binary_cache_close(c);
    free(below);
    free(file);
}

/* A write that fails part way through an entry (the file size limit here,
 * EFBIG where a full disk gives ENOSPC) fails the store, leaves no
 * temporary file, and says why in the words a run counts its stores
 * under, without the entry's name. SIGXFSZ is ignored, as skytune's main
 * ignores it; the limit binds root too. */
Test(binary_cache, a_store_that_cannot_write_its_entry_says_why)
{
    binary_cache *c = open_cache(0);
    binary_cache_key fits = simple_key("fits");
    store_payload(c, &fits, 64, 1); /* the folder is made, as nothing else would */
    cr_assert_str_eq(binary_cache_store_reason(c), "", "no store has failed");

    binary_cache_key key = simple_key("too large");
    size_t size = 64 * 1024;
    unsigned char *p = payload(size, 2);
    cr_assert_neq(signal(SIGXFSZ, SIG_IGN), SIG_ERR);
    struct rlimit saved;
    cr_assert_eq(getrlimit(RLIMIT_FSIZE, &saved), 0);
    struct rlimit low = {.rlim_cur = 4096, .rlim_max = saved.rlim_max};
    cr_assert_eq(setrlimit(RLIMIT_FSIZE, &low), 0, "%s", strerror(errno));
    skytune_error err = {0};
    int rc = binary_cache_store_binary(c, &key, p, size, &err);
    cr_assert_eq(setrlimit(RLIMIT_FSIZE, &saved), 0, "%s", strerror(errno));
    cr_assert_eq(rc, -1, "a 64 KiB entry was stored under a 4 KiB file size limit");
    cr_assert_str_eq(binary_cache_store_reason(c), strerror(EFBIG));
    cr_assert(strstr(err.message, key.name) && strstr(err.message, strerror(EFBIG)),
              "the message names the entry and the cause: %s", err.message);
    cr_assert_eq(binary_cache_get_counts(c).stores, 1, "only the entry that fits");
    cr_assert_eq(binary_cache_get_counts(c).errors, 1);
    binary_cache_folder_usage u;
    cr_assert_eq(binary_cache_usage(cache_dir, &u, &err), 0, "%s", err.message);
    cr_assert_eq(u.entries, 1, "nothing of the entry that failed is left as an entry");
    DIR *d = opendir(cache_dir);
    cr_assert_not_null(d);
    size_t files = 0;
    for (struct dirent *e; (e = readdir(d));)
        if (e->d_name[0] != '.') files++;
    closedir(d);
    cr_assert_eq(files, 1, "a temporary file was left behind");
    binary_cache_entry entry;
    cr_assert_eq(load(c, &key, &entry), BINARY_CACHE_MISS);

    /* Within the limit again, the same entry is stored. */
    store_payload(c, &key, size, 2);
    cr_assert_eq(load(c, &key, &entry), BINARY_CACHE_BINARY);
    binary_cache_entry_clear(&entry);
    free(p);
    binary_cache_key_clear(&key);
    binary_cache_key_clear(&fits);
    binary_cache_close(c);
}

/* ------------------------------------------------------------ the measurer */

static cl_device_entry *devices;
static size_t chosen_device;

static void list_devices(void)
{
    size_t n;
    skytune_error err = {0};
    cr_assert_eq(cl_devices_list(&devices, &n, &err), 0, "%s", err.message);
    cr_assert_eq(cl_device_select(devices, n, NULL, &chosen_device, &err), 0, "%s", err.message);
}

/* These tests keep program binaries, which on PoCL's CPU devices happens
 * only with PoCL's own kernel cache off (binary_keeping.h), as it always
 * does on a GPU. PoCL reads the variable when it starts. */
static void open_devices(void)
{
    make_scratch();
    cr_assert_eq(setenv("POCL_KERNEL_CACHE", "0", 1), 0);
    list_devices();
}

static void close_devices(void)
{
    free(devices);
    devices = NULL;
    remove_scratch();
}

static measurer *open_measurer(binary_cache *cache, bool skip_reference)
{
    /* The measurer keeps the problem by reference. */
    static skytune_values problem = {0};
    measurer_options opts = {.runs = 3, .seed = 1, .cache = cache,
                             .skip_reference = skip_reference};
    measurer *ms;
    skytune_error err = {0};
    cr_assert_eq(measurer_open(&trivial_plugin, &devices[chosen_device], &problem, &opts, &ms,
                               &err),
                 0, "%s", err.message);
    return ms;
}

typedef struct trivial_config {
    skytune_named_value items[3];
    skytune_values values;
} trivial_config;

static void make_config(trivial_config *c, int64_t mode)
{
    c->items[0] = (skytune_named_value){"wg", {.type = SKYTUNE_INT, .i = 64}};
    c->items[1] = (skytune_named_value){"MODE", {.type = SKYTUNE_INT, .i = mode}};
    c->items[2] = (skytune_named_value){"variant", {.type = SKYTUNE_INT, .i = 0}};
    c->values = (skytune_values){.count = 3, .items = c->items};
}

static void measure(measurer *ms, int64_t mode, measurement *m)
{
    trivial_config config;
    make_config(&config, mode);
    skytune_error err = {0};
    cr_assert_eq(measurer_measure(ms, &config.values, m, &err), 0, "%s", err.message);
}

static void compile(measurer *ms, int64_t mode, measurement *m)
{
    trivial_config config;
    make_config(&config, mode);
    skytune_error err = {0};
    cr_assert_eq(measurer_compile(ms, &config.values, m, &err), 0, "%s", err.message);
}

/* The key the measurer uses for the trivial kernel in `mode`. */
static binary_cache_key measurer_key(measurer *ms, int64_t mode)
{
    trivial_config config;
    make_config(&config, mode);
    char options[8192];
    skytune_error err = {0};
    cr_assert_eq(measurer_build_options(ms, &config.values, options, sizeof options, &err), 0,
                 "%s", err.message);
    return make_key(&devices[chosen_device].info, trivial_plugin.kernel_source, options);
}

static void assert_ok(const measurement *m)
{
    cr_assert_eq(m->status, MEAS_OK, "status %s: %s", measurement_status_name(m->status),
                 m->message ? m->message : "");
    cr_assert_eq(m->n_samples, 3, "verified and timed");
}

TestSuite(binary_cache_measurer, .init = open_devices, .fini = close_devices, .timeout = 300);

Test(binary_cache_measurer, a_second_measurer_loads_the_binary)
{
    binary_cache *first_cache = open_cache(0);
    measurer *first = open_measurer(first_cache, false);
    measurement m;
    measure(first, 0, &m);
    assert_ok(&m);
    measurement_clear(&m);
    binary_cache_counts n = binary_cache_get_counts(first_cache);
    cr_assert_eq(n.misses, 1);
    cr_assert_eq(n.stores, 1, "the compiled binary is stored: %s",
                 binary_cache_last_error(first_cache));
    measurer_close(first);
    binary_cache_close(first_cache);

    /* Another measurer with its own cache object: another process. */
    binary_cache *cache = open_cache(0);
    measurer *second = open_measurer(cache, false);
    measure(second, 0, &m);
    assert_ok(&m);
    cr_assert_eq(m.first_mismatch, -1);
    measurement_clear(&m);
    n = binary_cache_get_counts(cache);
    cr_assert_eq(n.binary_hits, 1, "the second measurer compiled instead of loading");
    cr_assert_eq(n.rejected, 0, "PoCL refused its own binary");
    cr_assert_eq(n.misses, 0);
    cr_assert_eq(n.stores, 0, "a hit is not stored again");
    measurer_close(second);
    binary_cache_close(cache);
}

Test(binary_cache_measurer, a_compile_failure_comes_back_with_the_same_message)
{
    binary_cache *first_cache = open_cache(0);
    measurer *first = open_measurer(first_cache, false);
    measurement fresh;
    measure(first, 1, &fresh);
    cr_assert_eq(fresh.status, MEAS_COMPILE);
    cr_assert(strstr(fresh.message, "does not compile") != NULL, "%s", fresh.message);
    cr_assert_eq(binary_cache_get_counts(first_cache).stores, 1, "the failure is stored");
    measurer_close(first);
    binary_cache_close(first_cache);

    binary_cache *cache = open_cache(0);
    measurer *second = open_measurer(cache, false);
    measurement cached;
    measure(second, 1, &cached);
    cr_assert_eq(binary_cache_get_counts(cache).failure_hits, 1, "the compiler ran again");
    cr_assert_eq(cached.status, MEAS_COMPILE);
    cr_assert_str_eq(cached.message, fresh.message);
    cr_assert_eq(cached.n_samples, 0);
    measurement_clear(&fresh);
    measurement_clear(&cached);
    measurer_close(second);
    binary_cache_close(cache);
}

Test(binary_cache_measurer, measurer_compile_fills_the_cache_for_measuring)
{
    binary_cache *worker_cache = open_cache(0);
    measurer *worker = open_measurer(worker_cache, true);
    measurement m;
    const char *reason;
    compile(worker, 0, &m);
    cr_assert_eq(m.status, MEAS_OK, "%s", m.message ? m.message : "");
    cr_assert_gt(m.build_s, 0.0);
    cr_assert_eq(m.n_samples, 0, "compiling runs nothing");
    cr_assert_eq(measurer_cache_entry(worker, &reason), CACHE_ENTRY_STORED);
    measurement_clear(&m);
    compile(worker, 1, &m);
    cr_assert_eq(m.status, MEAS_COMPILE);
    cr_assert(strstr(m.message, "does not compile") != NULL, "%s", m.message);
    cr_assert_eq(measurer_cache_entry(worker, &reason), CACHE_ENTRY_STORED, "the failure");
    char *compiled_message = strdup(m.message);
    measurement_clear(&m);
    cr_assert_eq(binary_cache_get_counts(worker_cache).stores, 2);
    /* Compiling again finds both and stores nothing. */
    compile(worker, 0, &m);
    cr_assert_eq(m.status, MEAS_OK);
    cr_assert_eq(measurer_cache_entry(worker, &reason), CACHE_ENTRY_FOUND);
    measurement_clear(&m);
    binary_cache_counts n = binary_cache_get_counts(worker_cache);
    cr_assert_eq(n.binary_hits, 1);
    cr_assert_eq(n.stores, 2);
    measurer_close(worker);
    binary_cache_close(worker_cache);

    binary_cache *cache = open_cache(0);
    measurer *ms = open_measurer(cache, false);
    measure(ms, 0, &m);
    assert_ok(&m);
    cr_assert_eq(measurer_cache_entry(ms, &reason), CACHE_ENTRY_FOUND);
    measurement_clear(&m);
    measure(ms, 1, &m);
    cr_assert_eq(m.status, MEAS_COMPILE);
    cr_assert_str_eq(m.message, compiled_message);
    cr_assert_eq(measurer_cache_entry(ms, &reason), CACHE_ENTRY_FOUND);
    measurement_clear(&m);
    n = binary_cache_get_counts(cache);
    cr_assert_eq(n.binary_hits, 1);
    cr_assert_eq(n.failure_hits, 1);
    cr_assert_eq(n.misses, 0);
    free(compiled_message);
    measurer_close(ms);
    binary_cache_close(cache);
}

/* A cache whose entries cannot be written (its folder lies under a file,
 * which stops root too) fails no measurement: each configuration is
 * compiled and measured, or recorded as the compile failure it is, and the
 * measurer says that its entry was not stored and why, every time. */
Test(binary_cache_measurer, an_entry_that_cannot_be_stored_fails_no_measurement)
{
    char *file = cli_path(scratch, "plain");
    cli_write_file(file, "x", 1);
    char *below = cli_path(file, "binaries");
    binary_cache *cache = NULL;
    skytune_error err = {0};
    cr_assert_eq(binary_cache_open(below, 0, &cache, &err), 0, "%s", err.message);
    measurer *ms = open_measurer(cache, false);
    measurer *worker = open_measurer(cache, true);
    const char *reason;
    for (int round = 0; round < 2; round++) {
        measurement m;
        measure(ms, 0, &m);
        assert_ok(&m);
        measurement_clear(&m);
        cr_assert_eq(measurer_cache_entry(ms, &reason), CACHE_ENTRY_NOT_STORED,
                     "round %d: the entry was stored", round);
        cr_assert_str_eq(reason, strerror(ENOTDIR));
        measure(ms, 1, &m);
        cr_assert_eq(m.status, MEAS_COMPILE, "%s", m.message ? m.message : "");
        measurement_clear(&m);
        cr_assert_eq(measurer_cache_entry(ms, &reason), CACHE_ENTRY_NOT_STORED);
        compile(worker, 0, &m);
        cr_assert_eq(m.status, MEAS_OK, "%s", m.message ? m.message : "");
        measurement_clear(&m);
        cr_assert_eq(measurer_cache_entry(worker, &reason), CACHE_ENTRY_NOT_STORED);
        cr_assert_str_eq(reason, strerror(ENOTDIR));
    }
    binary_cache_counts n = binary_cache_get_counts(cache);
    cr_assert_eq(n.stores, 0);
    cr_assert_eq(n.binary_hits + n.failure_hits, 0);
    measurer_close(worker);
    measurer_close(ms);

    /* Without a cache there is no entry to tell of. */
    ms = open_measurer(NULL, false);
    measurement m;
    measure(ms, 0, &m);
    assert_ok(&m);
    measurement_clear(&m);
    cr_assert_eq(measurer_cache_entry(ms, &reason), CACHE_ENTRY_NONE);
    cr_assert_str_eq(reason, "");
    measurer_close(ms);
    binary_cache_close(cache);
    free(below);
    free(file);
}

Test(binary_cache_measurer, a_compile_only_measurer_refuses_to_measure)
{
    measurer *worker = open_measurer(NULL, true);
    trivial_config config;
    make_config(&config, 0);
    measurement m;
    skytune_error err = {0};
    cr_assert_eq(measurer_measure(worker, &config.values, &m, &err), -1);
    cr_assert(strstr(err.message, "skip_reference") != NULL, "%s", err.message);
    /* Without a cache it still compiles. */
    compile(worker, 0, &m);
    cr_assert_eq(m.status, MEAS_OK, "%s", m.message ? m.message : "");
    measurement_clear(&m);
    measurer_close(worker);
}

Test(binary_cache_measurer, a_binary_the_driver_refuses_is_rebuilt_and_replaced)
{
    binary_cache *cache = open_cache(0);
    measurer *ms = open_measurer(cache, false);
    /* A whole entry, right key, but not a program binary of this driver
     * (PoCL checks its binaries' header). */
    binary_cache_key key = measurer_key(ms, 0);
    store_payload(cache, &key, 4096, 0x5a);
    measurement m;
    measure(ms, 0, &m);
    assert_ok(&m);
    measurement_clear(&m);
    binary_cache_counts n = binary_cache_get_counts(cache);
    cr_assert_eq(n.binary_hits, 1);
    cr_assert_eq(n.rejected, 1);
    cr_assert_eq(n.stores, 2, "the compiled binary replaces the refused one");
    binary_cache_entry entry;
    cr_assert_eq(load(cache, &key, &entry), BINARY_CACHE_BINARY);
    cr_assert_not(whole_payload(entry.binary, entry.binary_size, 0x5a), "still the refused one");
    binary_cache_entry_clear(&entry);
    /* And the next measurement uses it. */
    measure(ms, 0, &m);
    assert_ok(&m);
    measurement_clear(&m);
    cr_assert_eq(binary_cache_get_counts(cache).rejected, 1);
    binary_cache_key_clear(&key);
    measurer_close(ms);
    binary_cache_close(cache);
}

/* ------------------------------------------------------------ PoCL's kernel cache */

static char *pocl_cache; /* scratch/pocl: PoCL's own kernel cache */

static void open_pocl_devices(void)
{
    make_scratch();
    pocl_cache = cli_path(scratch, "pocl");
    cr_assert_eq(mkdir(pocl_cache, 0700), 0);
    cr_assert_eq(setenv("POCL_CACHE_DIR", pocl_cache, 1), 0);
    cr_assert_eq(unsetenv("POCL_KERNEL_CACHE"), 0);
    list_devices();
}

static void close_pocl_devices(void)
{
    free(pocl_cache);
    pocl_cache = NULL;
    close_devices();
}

static size_t folder_entries(const char *dir)
{
    DIR *d = opendir(dir);
    cr_assert_not_null(d, "%s: %s", dir, strerror(errno));
    size_t n = 0;
    for (struct dirent *de; (de = readdir(d)) != NULL;)
        if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0) n++;
    closedir(d);
    return n;
}

static uint64_t cache_entry_count(void)
{
    binary_cache_folder_usage u;
    skytune_error err = {0};
    cr_assert_eq(binary_cache_usage(cache_dir, &u, &err), 0, "%s", err.message);
    return u.entries;
}

TestSuite(binary_cache_pocl, .init = open_pocl_devices, .fini = close_pocl_devices,
          .timeout = 300);

/* On PoCL's CPU device a build from source leaves no binary (asking for
 * one would make PoCL generate code no launch uses): PoCL's kernel cache
 * keeps the build, and a later measurer, in a compile worker or another
 * run, builds from source again and measures the same. Failures are still
 * the binary cache's. */
Test(binary_cache_pocl, a_build_is_left_to_pocls_kernel_cache)
{
    const skytune_device_info *dev = &devices[chosen_device].info;
    if (dev->is_gpu || !strstr(dev->platform, "Portable Computing Language"))
        cr_skip_test("the device is not PoCL's CPU device: %s", dev->platform);
    cr_assert_not(binary_keeping_worthwhile(dev));

    binary_cache *worker_cache = open_cache(0);
    measurer *worker = open_measurer(worker_cache, true);
    measurement m;
    const char *reason;
    compile(worker, 0, &m);
    cr_assert_eq(m.status, MEAS_OK, "%s", m.message ? m.message : "");
    cr_assert_eq(measurer_cache_entry(worker, &reason), CACHE_ENTRY_NONE, "a binary was kept");
    measurement_clear(&m);
    compile(worker, 1, &m);
    cr_assert_eq(m.status, MEAS_COMPILE);
    cr_assert_eq(measurer_cache_entry(worker, &reason), CACHE_ENTRY_STORED, "the failure");
    char *compiled_message = strdup(m.message);
    measurement_clear(&m);
    binary_cache_counts n = binary_cache_get_counts(worker_cache);
    cr_assert_eq(n.stores, 1, "only the failure is stored");
    cr_assert_eq(cache_entry_count(), 1);
    cr_assert_gt(folder_entries(pocl_cache), 0, "PoCL's kernel cache kept nothing");
    measurer_close(worker);
    binary_cache_close(worker_cache);

    /* The measuring worker, or a repeat run: the build from source again
     * (from PoCL's cache), the failure from ours, the same results. */
    for (int round = 0; round < 2; round++) {
        binary_cache *cache = open_cache(0);
        measurer *ms = open_measurer(cache, false);
        measure(ms, 0, &m);
        assert_ok(&m);
        cr_assert_eq(m.first_mismatch, -1);
        cr_assert_eq(measurer_cache_entry(ms, &reason), CACHE_ENTRY_NONE);
        measurement_clear(&m);
        measure(ms, 1, &m);
        cr_assert_eq(m.status, MEAS_COMPILE);
        cr_assert_str_eq(m.message, compiled_message);
        cr_assert_eq(measurer_cache_entry(ms, &reason), CACHE_ENTRY_FOUND);
        measurement_clear(&m);
        n = binary_cache_get_counts(cache);
        cr_assert_eq(n.binary_hits, 0);
        cr_assert_eq(n.failure_hits, 1);
        cr_assert_eq(n.stores, 0);
        cr_assert_eq(cache_entry_count(), 1, "round %d kept a binary", round);
        measurer_close(ms);
        binary_cache_close(cache);
    }
    free(compiled_message);
}

/* Binaries are kept on every GPU and every other driver, and on PoCL's CPU
 * devices when PoCL's kernel cache is off. */
Test(binary_cache_pocl, binaries_are_kept_everywhere_else)
{
    skytune_device_info dev = {0};
    snprintf(dev.platform, sizeof dev.platform, "Portable Computing Language");
    cr_assert_not(binary_keeping_worthwhile(&dev));
    dev.is_gpu = 1;
    cr_assert(binary_keeping_worthwhile(&dev), "PoCL on a GPU (CUDA)");
    dev.is_gpu = 0;
    snprintf(dev.platform, sizeof dev.platform, "Intel(R) CPU Runtime for OpenCL(TM) Applications");
    cr_assert(binary_keeping_worthwhile(&dev));
    snprintf(dev.platform, sizeof dev.platform, "NVIDIA CUDA");
    dev.is_gpu = 1;
    cr_assert(binary_keeping_worthwhile(&dev));
    snprintf(dev.platform, sizeof dev.platform, "Portable Computing Language");
    dev.is_gpu = 0;
    cr_assert_eq(setenv("POCL_KERNEL_CACHE", "0", 1), 0);
    cr_assert(binary_keeping_worthwhile(&dev), "nothing else would keep the build");
    cr_assert_eq(setenv("POCL_KERNEL_CACHE", "1", 1), 0);
    cr_assert_not(binary_keeping_worthwhile(&dev));
}

/* ------------------------------------------------------------ skytune cache */

TestSuite(cache_cli, .init = make_scratch, .fini = remove_scratch, .timeout = 300);

static void fill_cache(size_t n_entries)
{
    binary_cache *c = open_cache(0);
    for (size_t k = 0; k < n_entries; k++) {
        char source[16];
        snprintf(source, sizeof source, "cli %zu", k);
        binary_cache_key key = simple_key(source);
        store_payload(c, &key, 3000, 1);
        binary_cache_key_clear(&key);
    }
    binary_cache_close(c);
}

/* The number after `label` at the start of a line of `out`. */
static long long field(const char *out, const char *label)
{
    char *rest = cli_line_after(out, label);
    cr_assert_not_null(rest, "no '%s' in:\n%s", label, out);
    long long value = strtoll(rest, NULL, 10);
    free(rest);
    return value;
}

Test(cache_cli, show_and_clear_a_folder)
{
    cli_result r = cli_run(CLI_ARGS("cache", "show", "--dir", cache_dir));
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert(strstr(r.out, cache_dir) != NULL, "%s", r.out);
    cr_assert_eq(field(r.out, "entries "), 0);
    cli_result_free(&r);

    fill_cache(3);
    char *foreign = cli_path(cache_dir, "README");
    cli_write_file(foreign, "keep me", 7);
    uint64_t entries, bytes;
    skytune_error err = {0};
    cr_assert_eq(usage_of(cache_dir, &entries, &bytes, &err), 0, "%s", err.message);

    r = cli_run(CLI_ARGS("cache", "--dir", cache_dir));
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_eq(field(r.out, "entries "), 3);
    char *size = cli_line_after(r.out, "size ");
    cr_assert_not_null(size);
    char expected[64];
    snprintf(expected, sizeof expected, "(%llu bytes)", (unsigned long long)bytes);
    cr_assert(strstr(size, expected) != NULL, "%s", r.out);
    free(size);
    cli_result_free(&r);

    r = cli_run(CLI_ARGS("cache", "clear", "--dir", cache_dir));
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert(strstr(r.out, "removed 3 entries") != NULL, "%s", r.out);
    cli_result_free(&r);
    cr_assert(cli_file_exists(foreign), "clear removed a file that is not an entry");
    cr_assert_eq(usage_of(cache_dir, &entries, &bytes, &err), 0, "%s", err.message);
    cr_assert_eq(entries, 0);

    r = cli_run(CLI_ARGS("cache", "--dir", cache_dir));
    cr_assert_eq(field(r.out, "entries "), 0);
    cli_result_free(&r);
    free(foreign);
}

/* A run whose cache folder others can write says so once and compiles
 * from source; `cache show` says why the folder is not used. */
Test(cache_cli, a_run_does_not_use_a_folder_others_can_write)
{
    char *parent = cli_path(scratch, "cache");
    cr_assert_eq(mkdir(parent, 0700), 0);
    free(parent);
    cr_assert_eq(mkdir(cache_dir, 0777), 0);
    cr_assert_eq(chmod(cache_dir, 0777), 0); /* past the umask */
    char *db = cli_path(scratch, "run.db");
    cli_result r = cli_run(CLI_ARGS("run", "--plugin", "vector_add", "--strategy", "random",
                                    "--budget", "2", "--runs", "2", "--db", db, "--cache-dir",
                                    cache_dir));
    cr_assert_eq(r.status, 0, "%s", r.err);
    const char *said = "can be written by other users (mode 0777): the binary cache is not used";
    cr_assert(strstr(r.err, said), "%s", r.err);
    cr_assert_null(strstr(strstr(r.err, said) + 1, "can be written"), "said once:\n%s", r.err);
    cr_assert(strstr(r.out, "binary cache off"), "%s", r.out);
    cli_result_free(&r);
    uint64_t entries, bytes;
    skytune_error err = {0};
    cr_assert_eq(usage_of(cache_dir, &entries, &bytes, &err), 0, "%s", err.message);
    cr_assert_eq(entries, 0, "nothing stored in it");

    r = cli_run(CLI_ARGS("cache", "show", "--dir", cache_dir));
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert(strstr(r.out, "not used   the binary cache folder"), "%s", r.out);
    cli_result_free(&r);
    free(db);
}

/* The rest of a summary line "LABEL: N (0 stored in the cache; N could not
 * be stored: WHY)": every build counted, none stored, each for why.
 * Returns N. */
static long long unstored_builds(const char *out, const char *label, const char *why)
{
    char *rest = cli_line_after(out, label);
    cr_assert_not_null(rest, "no '%s' line in:\n%s", label, out);
    long long n = strtoll(rest, NULL, 10);
    char expected[512];
    snprintf(expected, sizeof expected, "%lld (0 stored in the cache; %lld could not be stored: %s)",
             n, n, why);
    cr_assert_str_eq(rest, expected, "the line after '%s' is untruthful:\n%s", label, out);
    free(rest);
    return n;
}

/* A cache folder whose entries cannot be written costs the run its cache
 * and nothing else. The folder lies under a file, so every entry fails
 * (ENOTDIR) whoever runs the test, root too, as a full disk fails them
 * (ENOSPC); the database beside it is written as ever. Every configuration
 * is measured ok, the run says once that the cache cannot be written and
 * why, and its summary counts what the compile worker and the measuring
 * worker built and could not store, rather than "compiled ahead: 6" as if
 * the next run would find them. Without isolation the same. */
Test(cache_cli, a_cache_that_cannot_be_written_is_counted_and_said)
{
    char *own_pocl_cache = cli_path(scratch, "pocl-cache");
    cr_assert_eq(setenv("POCL_CACHE_DIR", own_pocl_cache, 1), 0);
    /* So that PoCL's builds are stored as a GPU's are (binary_keeping.h). */
    cr_assert_eq(setenv("POCL_KERNEL_CACHE", "0", 1), 0);
    free(own_pocl_cache);
    char *file = cli_path(scratch, "plain");
    cli_write_file(file, "x", 1);
    char *below = cli_path(file, "binaries");
    const char *why = strerror(ENOTDIR);
    char said[4096];
    snprintf(said, sizeof said, "the binary cache %s cannot be written (%s)", below, why);
    for (int isolated = 1; isolated >= 0; isolated--) {
        char *db = cli_path(scratch, isolated ? "workers.db" : "inline.db");
        hostile_args args = hostile_run_args("exhaustive", db);
        hostile_args_add(&args, CLI_ARGS("--runs", "2", "--seed", "1", "--cache-dir", below,
                                         "--no-race"));
        hostile_args_add(&args, isolated ? CLI_ARGS("--compile-jobs", "1")
                                         : CLI_ARGS("--no-isolation"));
        cli_result r = hostile_run_ok(&args, "a run whose cache cannot be written");
        cr_assert(strstr(r.out, "status: ok 6\n"), "not every configuration passed:\n%s", r.out);
        const char *notice = strstr(r.err, said);
        cr_assert(notice, "the run did not say that the cache cannot be written:\n%s", r.err);
        cr_assert_null(strstr(notice + strlen(said), "cannot be written"), "said more than once:\n%s",
                       r.err);
        if (isolated)
            cr_assert_gt(unstored_builds(r.out, "compiled ahead by the compile workers: ", why),
                         0);
        else
            cr_assert_null(strstr(r.out, "compiled ahead"), "%s", r.out);
        cr_assert_eq(unstored_builds(r.out, "built for measuring: ", why), 6,
                     "each configuration is built again for measuring, and not stored:\n%s",
                     r.out);
        hostile_summary s = hostile_parse_summary(r.out);
        cli_result_free(&r);
        cr_assert_eq(s.measured, 6);
        cr_assert_eq(cli_db_int(db, "SELECT COUNT(*) FROM measurements WHERE status = 'ok'"
                                    " AND median_ns > 0 AND n_samples = 2"),
                     6, "a configuration whose entry was not stored was not measured ok");
        hostile_assert_each_measured_once(db, s.campaign, 6);
        hostile_assert_database_sound(db);
        free(db);
    }
    free(below);
    free(file);
}

Test(cache_cli, the_environment_chooses_the_folder)
{
    fill_cache(2);
    char env[4096];
    snprintf(env, sizeof env, "SKYTUNE_CACHE_DIR=%s", cache_dir);
    cli_result r = cli_run_env(CLI_ARGS(env), CLI_ARGS("cache"));
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert(strstr(r.out, cache_dir) != NULL, "%s", r.out);
    cr_assert_eq(field(r.out, "entries "), 2);
    cli_result_free(&r);
}

Test(cache_cli, bad_usage_is_refused)
{
    cli_result r = cli_run(CLI_ARGS("cache", "purge", "--dir", cache_dir));
    cr_assert_eq(r.status, 2, "%s", cli_status_text(r.status));
    cr_assert(strstr(r.err, "'purge' is not one of: show, clear") != NULL, "%s", r.err);
    cli_result_free(&r);

    char *file = cli_path(scratch, "plain");
    cli_write_file(file, "x", 1);
    r = cli_run(CLI_ARGS("cache", "clear", "--dir", file));
    cr_assert_eq(r.status, 1, "%s", cli_status_text(r.status));
    cr_assert(strstr(r.err, "is not a folder") != NULL, "%s", r.err);
    cli_result_free(&r);
    cr_assert(cli_file_exists(file));
    free(file);
}
