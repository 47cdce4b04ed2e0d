/* The rules docs/archive-format.md states for strings and metadata, shared
 * by the checks at open (reader.c) and the validator (validate.c). */
#include <stdio.h>

#include "tsr_internal.h"

int tsr_str_in_bounds(const struct tsr_archive* a, const uint8_t* ref) {
  uint64_t off = tsr_le32(ref), len = tsr_le32(ref + 4);
  if (!tsr_range_ok(off, len + 1, a->strs_size) || a->strs[off + len] != 0) return 0;
  return memchr(a->strs + off, 0, (size_t)len) == NULL;
}

/* 1 when the n bytes at s are well-formed UTF-8 (RFC 3629: no overlong
 * forms, no surrogates, nothing above U+10FFFF). */
static int utf8_ok(const uint8_t* s, size_t n) {
  size_t i = 0;
  while (i < n) {
    uint8_t c = s[i];
    if (c < 0x80) { ++i; continue; }
    size_t len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
    if (c < 0xc2 || c > 0xf4 || n - i < len) return 0;
    for (size_t j = 1; j < len; ++j)
      if ((s[i + j] & 0xc0) != 0x80) return 0;
    uint8_t c1 = s[i + 1];
    if ((c == 0xe0 && c1 < 0xa0) || (c == 0xed && c1 > 0x9f) || (c == 0xf0 && c1 < 0x90) ||
        (c == 0xf4 && c1 > 0x8f))
      return 0;
    i += len;
  }
  return 1;
}

const char* tsr_str_problem(const struct tsr_archive* a, const uint8_t* ref) {
  if (!tsr_str_in_bounds(a, ref)) return "is not a valid string reference";
  const uint8_t* s = a->strs + tsr_le32(ref);
  uint32_t len = tsr_le32(ref + 4);
  if (!utf8_ok(s, len)) return "is not UTF-8";
  if (len > 0 && s[0] == '/') return "is an absolute path";
  return NULL;
}

int tsr_is_identifier(const char* s) {
  if (!(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z'))) return 0;
  for (; *s; ++s)
    if (!(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9')))
      return 0;
  return 1;
}

int tsr_is_identity(const char* s) {
  size_t n = 0;
  for (; s[n]; ++n)
    if (!((s[n] >= '0' && s[n] <= '9') || (s[n] >= 'a' && s[n] <= 'f'))) return 0;
  return n == 64;
}

int tsr_is_target_name(const char* s) {
  if (!*s) return 0;
  for (; *s; ++s)
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
          *s == '_' || *s == '.' || *s == '+' || *s == '-'))
      return 0;
  return 1;
}

void tsr_quote(char out[TSR_QUOTE_SIZE], const char* s) {
  static const char hex[] = "0123456789abcdef";
  size_t o = 0;
  for (; *s && o + 8 < TSR_QUOTE_SIZE; ++s) {
    unsigned char c = (unsigned char)*s;
    if (c >= 0x20 && c < 0x7f && c != '\\' && c != '\'') {
      out[o++] = (char)c;
    } else {
      out[o++] = '\\';
      out[o++] = 'x';
      out[o++] = hex[c >> 4];
      out[o++] = hex[c & 15];
    }
  }
  if (*s) {
    memcpy(out + o, "...", 3);
    o += 3;
  }
  out[o] = 0;
}

/* The first rule record r breaks, or NULL. *prev is the previous key of the range or NULL. */
static const char* meta_problem(const struct tsr_archive* a, const uint8_t* r, const char* prev) {
  const char* key = tsr_str_at(a, r);
  if (!*key) return "empty key";
  if (strchr(key, '=')) return "key contains '='";
  if (strchr(key, '\n')) return "key contains a newline";
  if (strchr(tsr_str_at(a, r + 8), '\n')) return "value contains a newline";
  int c = prev ? strcmp(prev, key) : -1;
  return c == 0 ? "key appears twice" : c > 0 ? "keys not sorted" : NULL;
}

tsr_status tsr_check_meta(const struct tsr_archive* a, const tsr_table* t, uint32_t first,
                          uint32_t count, const char* where, char* msg, size_t msg_size) {
  const char* prev = NULL;
  for (uint32_t i = 0; i < count; ++i) {
    const uint8_t* r = tsr_rec(t, first + i);
    const char* why = tsr_str_problem(a, r);
    if (why) {
      tsr_set_message(msg, msg_size, "%s metadata %u: key %s", where, i, why);
      return TSR_ERROR_CORRUPT;
    }
    const char* value_why = tsr_str_problem(a, r + 8);
    why = value_why ? value_why : meta_problem(a, r, prev);
    if (why) {
      char q[TSR_QUOTE_SIZE];   /* quoted only on failure: this runs on every first use */
      tsr_quote(q, tsr_str_at(a, r));
      if (!*q) tsr_set_message(msg, msg_size, "%s metadata %u: %s", where, i, why);
      else tsr_set_message(msg, msg_size, "%s metadata '%s': %s%s", where, q, value_why ? "value " : "", why);
      return TSR_ERROR_CORRUPT;
    }
    prev = tsr_str_at(a, r);
  }
  return TSR_OK;
}
