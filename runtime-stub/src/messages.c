/* Thread-local failure messages (tsr_archive_last_message,
 * tsr_kernel_last_message): each thread sees its own last failure, so
 * concurrent launches of one kernel never write the same buffer. */
#include "tsr_internal.h"

static _Thread_local struct {
  const void* owner;
  char text[TSR_MESSAGE_SIZE];
} slots[2];

char* tsr_message_for(int slot, const void* owner) {
  if (slots[slot].owner != owner) {
    slots[slot].owner = owner;
    slots[slot].text[0] = 0;
  }
  return slots[slot].text;
}

const char* tsr_message_of(int slot, const void* owner) {
  return owner && slots[slot].owner == owner ? slots[slot].text : "";
}
