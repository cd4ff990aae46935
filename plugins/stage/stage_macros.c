#include "stage_macros.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layout.h"

void stage_macros_init(stage_macros *m) { memset(m, 0, sizeof *m); }

static bool is_identifier(const char *text)
{
    if (!text || !(isalpha((unsigned char)text[0]) || text[0] == '_')) return false;
    for (const char *c = text; *c; c++)
        if (!isalnum((unsigned char)*c) && *c != '_') return false;
    return true;
}

const char *stage_macros_find(const stage_macros *m, const char *name)
{
    for (size_t k = 0; k < m->count; k++)
        if (strcmp(m->items[k].name, name) == 0) return m->items[k].value;
    return NULL;
}

int stage_macros_add_int(stage_macros *m, const char *name, int64_t value, bool derived)
{
    if (m->count >= STAGE_MAX_MACROS || !is_identifier(name) ||
        strlen(name) >= STAGE_MACRO_NAME_LEN || stage_macros_find(m, name))
        return -1;
    stage_macro *item = &m->items[m->count++];
    snprintf(item->name, sizeof item->name, "%s", name);
    snprintf(item->value, sizeof item->value, "%lld", (long long)value);
    item->derived = derived;
    return 0;
}

int stage_macros_add_token(stage_macros *m, const char *name, const char *token, bool derived)
{
    if (m->count >= STAGE_MAX_MACROS || !is_identifier(name) || !is_identifier(token) ||
        strlen(name) >= STAGE_MACRO_NAME_LEN || strlen(token) >= STAGE_MACRO_VALUE_LEN ||
        stage_macros_find(m, name))
        return -1;
    stage_macro *item = &m->items[m->count++];
    snprintf(item->name, sizeof item->name, "%s", name);
    snprintf(item->value, sizeof item->value, "%s", token);
    item->derived = derived;
    return 0;
}

int stage_macros_add_strides(stage_macros *m, const char *prefix, const char *layout,
                             const char *letters, const int64_t *sizes)
{
    int64_t strides[LAYOUT_MAX_DIMS];
    if (layout_strides(layout, letters, sizes, strides) != 0) return -1;
    const size_t before = m->count;
    for (size_t k = 0; letters[k]; k++) {
        char name[STAGE_MACRO_NAME_LEN];
        const int n = snprintf(name, sizeof name, "%s_STRIDE_%c", prefix, letters[k]);
        if (n < 0 || (size_t)n >= sizeof name ||
            stage_macros_add_int(m, name, strides[k], true) != 0) {
            m->count = before;
            return -1;
        }
    }
    return 0;
}

int stage_macros_append_options(const stage_macros *m, bool derived_only, char *buf, size_t len)
{
    if (!buf || len == 0) return -1;
    const size_t start = strnlen(buf, len);
    if (start == len) return -1; /* not a NUL-terminated text */
    size_t used = start;
    for (size_t k = 0; k < m->count; k++) {
        if (derived_only && !m->items[k].derived) continue;
        const int n = snprintf(buf + used, len - used, " -D %s=%s", m->items[k].name,
                               m->items[k].value);
        if (n < 0 || (size_t)n >= len - used) {
            buf[start] = '\0';
            return -1;
        }
        used += (size_t)n;
    }
    return 0;
}

char *stage_macros_section(const stage_macros *m, const char *source)
{
    /* Each macro takes at most "#undef " + name + "\n#define " + name + " "
     * + value + "\n" before the source and "#undef " + name + "\n" after. */
    const size_t per_macro = 3 * STAGE_MACRO_NAME_LEN + STAGE_MACRO_VALUE_LEN + 32;
    const size_t size = strlen(source) + m->count * per_macro + 2;
    char *text = malloc(size);
    if (!text) return NULL;
    size_t used = 0;
    for (size_t k = 0; k < m->count; k++)
        used += (size_t)snprintf(text + used, size - used, "#undef %s\n#define %s %s\n",
                                 m->items[k].name, m->items[k].name, m->items[k].value);
    used += (size_t)snprintf(text + used, size - used, "%s\n", source);
    for (size_t k = 0; k < m->count; k++)
        used += (size_t)snprintf(text + used, size - used, "#undef %s\n", m->items[k].name);
    return text;
}
