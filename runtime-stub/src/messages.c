/* Thread-local failure messages (tsr_archive_last_message,
 * tsr_kernel_last_message): each thread sees its own last failure, so
 * concurrent launches of one kernel never write the same buffer. Owners are
 * process-unique ids rather than addresses: malloc hands a closed archive's
 * address to the next one, and that one starts with no message. */
#include "tsr_internal.h"

static _Thread_local struct {
  uint64_t owner;
  char text[TSR_MESSAGE_SIZE];
} slots[2];

static uint64_t next_owner;   /* only through __atomic builtins */

uint64_t tsr_message_new_owner(void) { return __atomic_add_fetch(&next_owner, 1, __ATOMIC_RELAXED); }

char* tsr_message_slot(int slot, uint64_t owner_id) {
  if (slots[slot].owner != owner_id) {
    slots[slot].owner = owner_id;
    slots[slot].text[0] = 0;
  }
  return slots[slot].text;
}

const char* tsr_message_text(int slot, uint64_t owner_id) {
  return owner_id && slots[slot].owner == owner_id ? slots[slot].text : "";
}
