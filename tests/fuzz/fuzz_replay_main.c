/* Feeds every file of the given files or directories to
 * LLVMFuzzerTestOneInput: the seed corpus replay run by ctest, built without
 * libFuzzer (see tests/fuzz/README.md). */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

static int replay_file(const char* path) {
  FILE* f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "cannot open %s\n", path);
    return 1;
  }
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t* data = (uint8_t*)malloc(size > 0 ? (size_t)size : 1);
  size_t got = data ? fread(data, 1, (size_t)size, f) : 0;
  fclose(f);
  if (!data || got != (size_t)size) {
    free(data);
    fprintf(stderr, "cannot read %s\n", path);
    return 1;
  }
  LLVMFuzzerTestOneInput(data, got);
  free(data);
  return 0;
}

int main(int argc, char** argv) {
  int files = 0, failures = 0;
  for (int i = 1; i < argc; ++i) {
    struct stat st;
    if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
      DIR* dir = opendir(argv[i]);
      struct dirent* e;
      while (dir && (e = readdir(dir)) != NULL) {
        if (e->d_name[0] == '.') continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", argv[i], e->d_name);
        failures += replay_file(path);
        ++files;
      }
      if (dir) closedir(dir);
    } else {
      failures += replay_file(argv[i]);
      ++files;
    }
  }
  printf("replayed %d inputs, %d unreadable\n", files, failures);
  return files == 0 || failures != 0;
}
