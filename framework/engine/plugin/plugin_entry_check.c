/* dladdr1, dl_iterate_phdr and their ELF types are GNU extensions. */
#define _GNU_SOURCE
#include "plugin_entry_check.h"

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <stdbool.h>
#include <stdint.h>
#include <unistd.h>

#include <skytune/plugin.h>

/* ELF32_ST_TYPE and ELF64_ST_TYPE alike: the low four bits of st_info. */
#define SYMBOL_TYPE(st_info) ((st_info) & 0xf)

/* The loadable segment of any object in the process that holds an address. */
typedef struct segment_search {
    uintptr_t address;
    bool found;
    bool executable;
} segment_search;

static int find_segment(struct dl_phdr_info *info, size_t size, void *data)
{
    segment_search *search = data;
    for (ElfW(Half) k = 0; k < info->dlpi_phnum; k++) {
        const ElfW(Phdr) *segment = &info->dlpi_phdr[k];
        if (segment->p_type != PT_LOAD) continue;
        uintptr_t start = (uintptr_t)info->dlpi_addr + (uintptr_t)segment->p_vaddr;
        if (search->address >= start && search->address - start < segment->p_memsz) {
            search->found = true;
            search->executable = (segment->p_flags & PF_X) != 0;
            return 1;
        }
    }
    return 0;
}

static const char *data_symbol_kind(unsigned type)
{
    switch (type) {
    case STT_OBJECT: return "data (an object symbol, such as a variable or the description itself)";
    case STT_TLS: return "thread-local data";
    case STT_SECTION: return "a section symbol";
    case STT_FILE: return "a file symbol";
    case STT_COMMON: return "uninitialised data (a common symbol)";
    default: return NULL;
    }
}

int plugin_entry_check_function(const void *symbol, const char *name, skytune_error *err)
{
    static const char fix[] = "define it with SKYTUNE_DEFINE_PLUGIN(description) from "
                              "skytune/plugin.h: a function returning a pointer to the "
                              "description";
    /* The symbol table says what the symbol is, where the object has one. */
    Dl_info info;
    const ElfW(Sym) *entry_symbol = NULL;
    if (dladdr1(symbol, &info, (void **)&entry_symbol, RTLD_DL_SYMENT) != 0 && entry_symbol &&
        info.dli_saddr == symbol) {
        const char *kind = data_symbol_kind(SYMBOL_TYPE(entry_symbol->st_info));
        if (kind)
            return err_set(err, "%s: %s is %s, not a function; %s", name, SKYTUNE_PLUGIN_ENTRY,
                           kind, fix);
    }
    /* Whatever the symbol table says, calling it jumps to this address: it
     * must lie in a segment the loader mapped executable. */
    segment_search search = {.address = (uintptr_t)symbol};
    dl_iterate_phdr(find_segment, &search);
    if (!search.found)
        return err_set(err, "%s: %s points outside every loaded object, not at a function; %s",
                       name, SKYTUNE_PLUGIN_ENTRY, fix);
    if (!search.executable)
        return err_set(err,
                       "%s: %s lies in a segment that is not executable (data), not a "
                       "function; %s",
                       name, SKYTUNE_PLUGIN_ENTRY, fix);
    return 0;
}

int plugin_memory_readable(const void *address, size_t size)
{
    if (!address) return 0;
    /* The kernel reads the bytes written to a pipe and answers EFAULT for
     * an address that is not mapped readable, where reading it here would
     * be a segmentation fault. */
    int fds[2];
    if (pipe(fds) != 0) return 0;
    int readable = 1;
    char drain[4096];
    for (size_t done = 0; done < size && readable;) {
        size_t chunk = size - done < sizeof drain ? size - done : sizeof drain;
        ssize_t wrote = write(fds[1], (const char *)address + done, chunk);
        if (wrote < 0 && errno == EINTR) continue;
        if (wrote <= 0) {
            readable = 0;
            break;
        }
        if (read(fds[0], drain, (size_t)wrote) != wrote) readable = 0;
        done += (size_t)wrote;
    }
    close(fds[0]);
    close(fds[1]);
    return readable;
}
