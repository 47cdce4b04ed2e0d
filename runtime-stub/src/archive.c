/* Opening and closing archives (a file read on demand, or caller memory)
 * and the blob checksums: CRC-32C on first use, SHA-256 and CRC-32C in
 * verify (validate.c; docs/archive-format.md). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tsr_internal.h"

static tsr_status finish_open(struct tsr_archive* a, uint64_t data_len,
                              const tsr_open_options* options, tsr_archive** out_archive) {
  char* msg = options ? options->message : NULL;
  size_t msg_size = options ? options->message_size : 0;
  a->data_len = data_len;
  tsr_status s = tsr_parse(a, data_len, msg, msg_size);
  if (s == TSR_OK) {
    size_t n = a->vars.count ? a->vars.count : 1;
    a->blob_state = (uint8_t*)calloc(n, 1);
    a->kernel_state = (unsigned char*)calloc(a->kern.count ? a->kern.count : 1, 1);
    if (!a->blob_state || !a->kernel_state || (a->fd >= 0 && !(a->blob_copy = (uint8_t**)calloc(n, sizeof(uint8_t*)))))
      s = TSR_ERROR_OUT_OF_MEMORY;
  }
  if (s == TSR_OK && options && (options->flags & TSR_OPEN_VERIFY_BLOBS))
    s = tsr_archive_verify(a, msg, msg_size);
  if (s != TSR_OK) {
    tsr_archive_close(a);
    return s;
  }
  *out_archive = a;
  return TSR_OK;
}

static struct tsr_archive* new_archive(void) {
  struct tsr_archive* a = (struct tsr_archive*)calloc(1, sizeof *a);
  if (!a) return NULL;
  a->fd = -1;
  a->message_id = tsr_message_new_owner();
  if (pthread_mutex_init(&a->lock, NULL) != 0) {
    free(a);
    return NULL;
  }
  return a;
}

tsr_status tsr_archive_open_memory(const void* data, size_t size, const tsr_open_options* options,
                                   tsr_archive** out_archive) {
  if (!out_archive || (!data && size)) return TSR_ERROR_NULL_ARGUMENT;
  *out_archive = NULL;
  if (options) tsr_set_message(options->message, options->message_size, "%s", "");
  struct tsr_archive* a = new_archive();
  if (!a) return TSR_ERROR_OUT_OF_MEMORY;
  a->data = (const uint8_t*)data;
  if (options && (options->flags & TSR_OPEN_COPY)) {
    a->mapping = malloc(size ? size : 1);
    if (!a->mapping) {
      free(a);
      return TSR_ERROR_OUT_OF_MEMORY;
    }
    if (size) memcpy(a->mapping, data, size);
    a->mapping_size = size;
    a->data = (const uint8_t*)a->mapping;
  }
  a->head = a->data;
  return finish_open(a, size, options, out_archive);
}

/* pread until n bytes or end of file; the count read, or -1. */
static ssize_t read_at(int fd, uint8_t* p, size_t n, uint64_t off) {
  size_t done = 0;
  while (done < n) {
    ssize_t r = pread(fd, p + done, n - done, (off_t)(off + done));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return -1;
    if (r == 0) break;
    done += (size_t)r;
  }
  return (ssize_t)done;
}

/* Reads header and index with pread rather than mapping the file: a cold
 * load then touches no page of the archive it does not need, and page
 * faults on a fresh mapping cost more than copying the index. */
tsr_status tsr_archive_open_file(const char* path, const tsr_open_options* options,
                                 tsr_archive** out_archive) {
  if (!path || !out_archive) return TSR_ERROR_NULL_ARGUMENT;
  *out_archive = NULL;
  char* msg = options ? options->message : NULL;
  size_t msg_size = options ? options->message_size : 0;
  tsr_set_message(msg, msg_size, "%s", "");
  /* O_NONBLOCK: opening a FIFO must not wait for a writer; fstat refuses it. */
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    tsr_set_message(msg, msg_size, "cannot open '%s': %s", path, strerror(errno));
    return TSR_ERROR_IO;
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    tsr_set_message(msg, msg_size, "cannot read '%s': not a regular file", path);
    close(fd);
    return TSR_ERROR_IO;
  }
  struct tsr_archive* a = new_archive();
  if (!a) {
    close(fd);
    return TSR_ERROR_OUT_OF_MEMORY;
  }
  a->fd = fd;
  uint64_t file_size = (uint64_t)st.st_size;
  /* 4 KiB holds a 1.0 header and the index size; a longer index (or
   * header) is read to its end below. */
  uint64_t want = file_size < 4096 ? file_size : 4096;
  a->head_copy = (uint8_t*)malloc(want ? (size_t)want : 1);
  ssize_t got = a->head_copy ? read_at(fd, a->head_copy, (size_t)want, 0) : 0;
  if (got == (ssize_t)want && want >= 40) {
    uint64_t index_end;
    if (!tsr_add_u64(tsr_le64(a->head_copy + 24), tsr_le64(a->head_copy + 32), &index_end) ||
        index_end > file_size)
      index_end = 0;   /* the parser reports the bad layout */
    uint64_t header_size = tsr_le32(a->head_copy + 12);
    if (header_size > index_end && header_size <= file_size && header_size <= 65536)
      index_end = header_size;   /* the parser reads a header of up to 64 KiB first */
    if (index_end > want) {
      uint8_t* bigger = (uint8_t*)realloc(a->head_copy, (size_t)index_end);
      if (bigger) {
        a->head_copy = bigger;
        ssize_t more = read_at(fd, bigger + want, (size_t)(index_end - want), want);
        got = more < 0 ? -1 : got + more;
        want = index_end;
      } else {
        got = -2;
      }
    }
  }
  if (!a->head_copy || got == -2) {
    tsr_archive_close(a);
    return TSR_ERROR_OUT_OF_MEMORY;
  }
  if (got != (ssize_t)want) {
    tsr_set_message(msg, msg_size, "cannot read '%s': %s", path, got < 0 ? strerror(errno) : "file changed while reading");
    tsr_archive_close(a);
    return TSR_ERROR_IO;
  }
  a->head = a->head_copy;
  return finish_open(a, file_size, options, out_archive);
}

static tsr_status map_all_locked(struct tsr_archive* a) {
  if (a->data) return TSR_OK;
  if (a->data_len == 0) {
    a->data = (const uint8_t*)"";
    return TSR_OK;
  }
  void* map = mmap(NULL, (size_t)a->data_len, PROT_READ, MAP_PRIVATE, a->fd, 0);
  if (map == MAP_FAILED) {
    tsr_set_message(TSR_MSG(TSR_MSG_ARCHIVE, a), "cannot map the archive: %s", strerror(errno));
    return TSR_ERROR_IO;
  }
  a->mapping = map;
  a->mapping_size = (size_t)a->data_len;
  a->mapping_is_mmap = 1;
  a->data = (const uint8_t*)map;
  return TSR_OK;
}

tsr_status tsr_map_all(struct tsr_archive* a, const uint8_t** out_data) {
  pthread_mutex_lock(&a->lock);
  tsr_status s = map_all_locked(a);
  *out_data = a->data;
  pthread_mutex_unlock(&a->lock);
  return s;
}

void tsr_archive_lazy_counts(const struct tsr_archive* a, tsr_lazy_counts* out) {
  /* The lock is the archive's, not part of its logical state. */
  pthread_mutex_t* lock = (pthread_mutex_t*)&a->lock;
  pthread_mutex_lock(lock);
  *out = a->lazy;
  pthread_mutex_unlock(lock);
}

static const uint8_t* blob_bytes_locked(struct tsr_archive* a, uint32_t v) {
  const uint8_t* vr = tsr_rec(&a->vars, v);
  uint64_t off = tsr_le64(vr + 48), size = tsr_le64(vr + 56);
  if (a->data) return a->data + off;
  if (a->blob_copy[v]) return a->blob_copy[v];
  uint8_t* copy = (uint8_t*)malloc(size ? (size_t)size : 1);
  if (!copy) {
    tsr_set_message(TSR_MSG(TSR_MSG_ARCHIVE, a), "out of memory");
    return NULL;
  }
  ssize_t got = read_at(a->fd, copy, (size_t)size, off);
  ++a->lazy.blob_reads;
  if (got != (ssize_t)size) {
    tsr_set_message(TSR_MSG(TSR_MSG_ARCHIVE, a), "cannot read a blob of the archive: %s",
                    got < 0 ? strerror(errno) : "file changed while reading");
    free(copy);
    return NULL;
  }
  a->blob_copy[v] = copy;
  return copy;
}

void tsr_archive_close(tsr_archive* a) {
  if (!a) return;
  if (a->mapping_is_mmap) munmap(a->mapping, a->mapping_size);
  else free(a->mapping);
  if (a->blob_copy)
    for (uint32_t v = 0; v < a->vars.count; ++v) free(a->blob_copy[v]);
  free(a->blob_copy);
  free(a->head_copy);
  if (a->fd >= 0) close(a->fd);
  free(a->blob_state);
  free(a->kernel_state);
  pthread_mutex_destroy(&a->lock);
  free(a);
}

static tsr_status blob_check_locked(struct tsr_archive* a, uint32_t v, int full,
                                    const uint8_t** out_bytes) {
  const uint8_t* vr = tsr_rec(&a->vars, v);
  const uint8_t* blob = blob_bytes_locked(a, v);
  if (!blob) return TSR_ERROR_IO;
  if (out_bytes) *out_bytes = blob;
  uint8_t state = a->blob_state[v];
  if (state == TSR_BLOB_SHA_OK || (state == TSR_BLOB_CRC_OK && !full)) return TSR_OK;
  size_t size = (size_t)tsr_le64(vr + 56);
  /* A bad blob is rechecked on every call so the message names the check. */
  const char* what = full ? "sha256" : "crc32c";
  ++a->lazy.blob_checks;
  if (full) {
    /* Both checksums: verify must reject what a first use would. */
    uint8_t digest[32];
    tsr_sha256(blob, size, digest);
    state = memcmp(digest, vr + 64, 32) == 0 ? TSR_BLOB_SHA_OK : TSR_BLOB_BAD;
    if (state != TSR_BLOB_BAD && tsr_crc32c(blob, size) != tsr_le32(vr + 104)) {
      state = TSR_BLOB_BAD;
      what = "crc32c";
    }
  } else {
    state = tsr_crc32c(blob, size) == tsr_le32(vr + 104) ? TSR_BLOB_CRC_OK : TSR_BLOB_BAD;
  }
  a->blob_state[v] = state;
  if (state != TSR_BLOB_BAD) return TSR_OK;
  const uint8_t* kr = tsr_rec(&a->kern, tsr_le32(vr));
  tsr_set_message(TSR_MSG(TSR_MSG_ARCHIVE, a), "blob of kernel '%s' variant %s:%s: %s mismatch",
                  tsr_str_at(a, kr), tsr_str_at(a, vr + 8), tsr_str_at(a, vr + 16), what);
  return TSR_ERROR_CHECKSUM;
}

tsr_status tsr_blob_check(struct tsr_archive* a, uint32_t v, int full, const uint8_t** out_bytes) {
  pthread_mutex_lock(&a->lock);
  tsr_status s = blob_check_locked(a, v, full, out_bytes);
  pthread_mutex_unlock(&a->lock);
  return s;
}

const char* tsr_archive_last_message(const tsr_archive* a) {
  return a ? tsr_message_text(TSR_MSG_ARCHIVE, a->message_id) : "";
}
