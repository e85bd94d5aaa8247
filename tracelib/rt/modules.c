/* modules.c - what the process is made of: CHT_REC_MODULE records for the
 * loaded ELF objects (from dl_iterate_phdr, with their GNU build ids) and the
 * CHT_REC_PROGRAM record of the meta file (build id, argv).  Normal context
 * only (dl_iterate_phdr takes the loader lock); nothing here allocates with
 * malloc.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <string.h>
#include <unistd.h>

#include "recorder-private.h"

/* Copies the GNU build id of an object into out (RT_BUILD_ID_MAX bytes);
 * returns its length, 0 if it has none. */
static uint32_t object_build_id(const struct dl_phdr_info *info, unsigned char *out)
{
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_NOTE)
            continue;
        size_t align = ph->p_align == 8 ? 8 : 4;
        const unsigned char *p = (const unsigned char *)(info->dlpi_addr + ph->p_vaddr);
        const unsigned char *end = p + ph->p_memsz;
        while ((size_t)(end - p) >= sizeof(ElfW(Nhdr))) {
            ElfW(Nhdr) nh;
            memcpy(&nh, p, sizeof(nh));
            size_t name_off = sizeof(nh);
            size_t desc_off = name_off + ((nh.n_namesz + align - 1) & ~(align - 1));
            size_t next = desc_off + ((nh.n_descsz + align - 1) & ~(align - 1));
            if (next > (size_t)(end - p) || next < desc_off)
                break;
            if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 && memcmp(p + name_off, "GNU", 4) == 0 &&
                nh.n_descsz > 0) {
                uint32_t n = nh.n_descsz < RT_BUILD_ID_MAX ? nh.n_descsz : RT_BUILD_ID_MAX;
                memcpy(out, p + desc_off, n);
                return n;
            }
            p += next;
        }
    }
    return 0;
}

/* Path of the main program, NUL-terminated; returns its length with the NUL,
 * or 0. */
static size_t self_exe(char *buf, size_t cap)
{
    ssize_t n = readlink("/proc/self/exe", buf, cap - 1);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    return (size_t)n + 1;
}

struct module_walk {
    unsigned char *buf;
    size_t cap;
    size_t need; /* bytes */
    const uint64_t *skip;
    uint32_t nskip;
    int seen; /* objects visited so far */
};

static int module_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
    struct module_walk *w = arg;
    uint64_t lo = UINT64_MAX, hi = 0;
    unsigned char bid[RT_BUILD_ID_MAX];
    char exe[PATH_MAX];
    const char *path = info->dlpi_name ? info->dlpi_name : "";
    size_t path_len;
    int first = w->seen++ == 0;

    (void)size;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD)
            continue;
        uint64_t s = info->dlpi_addr + ph->p_vaddr;
        if (s < lo)
            lo = s;
        if (s + ph->p_memsz > hi)
            hi = s + ph->p_memsz;
    }
    if (hi == 0)
        return 0;
    for (uint32_t i = 0; i < w->nskip; i++)
        if (w->skip[i] == lo)
            return 0;

    /* the first object is the main program: glibc gives it an empty name */
    if (first && path[0] == '\0') {
        path_len = self_exe(exe, sizeof(exe));
        if (path_len)
            path = exe;
        else
            path_len = 1;
    } else {
        path_len = strlen(path) + 1;
    }
    uint32_t bid_len = object_build_id(info, bid);
    size_t rec_size = rt_pad8(sizeof(struct cht_rec_module) + bid_len + path_len);

    if (w->need + rec_size <= w->cap) {
        unsigned char *p = w->buf + w->need;
        struct cht_rec_module m = {
            .h = {.type = CHT_REC_MODULE, .aux = 0, .size = (uint32_t)rec_size},
            .base = info->dlpi_addr,
            .start = lo,
            .end = hi,
            .build_id_len = bid_len,
            .path_len = (uint32_t)path_len,
        };
        memset(p, 0, rec_size);
        memcpy(p, &m, sizeof(m));
        memcpy(p + sizeof(m), bid, bid_len);
        memcpy(p + sizeof(m) + bid_len, path, path_len - 1); /* NUL from memset */
    }
    w->need += rec_size;
    return 0;
}

size_t rt_modules_records(unsigned char *buf, size_t cap, const uint64_t *skip, uint32_t nskip)
{
    struct module_walk w = {.buf = buf, .cap = buf ? cap : 0, .skip = skip, .nskip = nskip};
    dl_iterate_phdr(module_cb, &w);
    return w.need;
}

struct build_id {
    uint32_t len;
    unsigned char bytes[RT_BUILD_ID_MAX];
};

static int main_bid_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
    struct build_id *bid = arg;
    (void)size;
    bid->len = object_build_id(info, bid->bytes);
    return 1; /* the first object is the main program */
}

/* Reads all of /proc/self/cmdline into memory from rt_mem_alloc; returns the
 * bytes read (0 on error) and the mapping size in *map_size. */
static size_t read_cmdline(char **out, size_t *map_size)
{
    size_t cap = 64 << 10, len = 0;
    char *buf = rt_mem_alloc(cap);
    int fd;

    *out = NULL;
    *map_size = 0;
    if (!buf)
        return 0;
    fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        goto fail;
    for (;;) {
        if (len == cap) {
            char *bigger = rt_mem_alloc(cap * 2);
            if (!bigger)
                goto fail_fd;
            memcpy(bigger, buf, len);
            rt_mem_free(buf, cap);
            buf = bigger;
            cap *= 2;
        }
        ssize_t n = read(fd, buf + len, cap - len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            goto fail_fd;
        if (n == 0)
            break;
        len += (size_t)n;
    }
    close(fd);
    *out = buf;
    *map_size = cap;
    return len;
fail_fd:
    close(fd);
fail:
    rt_mem_free(buf, cap);
    return 0;
}

size_t rt_program_record(unsigned char *buf, size_t cap, int32_t world_size)
{
    struct build_id bid = {0};
    char exe[PATH_MAX];
    char *cmd = NULL;
    size_t map_size = 0, cmd_len, exe_len, rest_off = 0, need = 0;
    uint32_t argc = 0;

    dl_iterate_phdr(main_bid_cb, &bid);
    cmd_len = read_cmdline(&cmd, &map_size);
    if (cmd_len && cmd[cmd_len - 1] != '\0')
        cmd_len = 0; /* cannot happen for a live process; be safe */
    /* argv[0] becomes the absolute path of the executable */
    exe_len = self_exe(exe, sizeof(exe));
    if (!exe_len) {
        exe[0] = '\0';
        exe_len = 1;
    }
    if (cmd_len) {
        rest_off = strnlen(cmd, cmd_len) + 1; /* skip the original argv[0] */
        if (rest_off > cmd_len)
            rest_off = cmd_len;
        for (size_t i = rest_off; i < cmd_len; i++)
            argc += cmd[i] == '\0';
    }
    argc += 1;
    size_t strings_len = exe_len + (cmd_len - rest_off);
    need = rt_pad8(sizeof(struct cht_rec_program) + bid.len + strings_len);
    if (buf && need <= cap) {
        struct cht_rec_program r = {
            .h = {.type = CHT_REC_PROGRAM, .aux = 0, .size = (uint32_t)need},
            .build_id_len = bid.len,
            .argc = argc,
            .strings_len = (uint32_t)strings_len,
            .world_size = world_size,
        };
        unsigned char *p = buf;
        memset(p, 0, need);
        memcpy(p, &r, sizeof(r));
        p += sizeof(r);
        memcpy(p, bid.bytes, bid.len);
        p += bid.len;
        memcpy(p, exe, exe_len);
        p += exe_len;
        if (cmd_len > rest_off)
            memcpy(p, cmd + rest_off, cmd_len - rest_off);
    }
    if (cmd)
        rt_mem_free(cmd, map_size);
    return need;
}
