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

/* Replays every regular file under `path`, recursing into directories. */
static void replay_path(const char* path, int* files, int* failures) {
  struct stat st;
  if (stat(path, &st) != 0) {
    fprintf(stderr, "cannot stat %s\n", path);
    ++*failures;
    return;
  }
  if (!S_ISDIR(st.st_mode)) {
    *failures += replay_file(path);
    ++*files;
    return;
  }
  DIR* dir = opendir(path);
  if (!dir) {
    fprintf(stderr, "cannot open directory %s\n", path);
    ++*failures;
    return;
  }
  struct dirent* e;
  while ((e = readdir(dir)) != NULL) {
    if (e->d_name[0] == '.') continue;
    char child[4096];
    snprintf(child, sizeof child, "%s/%s", path, e->d_name);
    replay_path(child, files, failures);
  }
  closedir(dir);
}

int main(int argc, char** argv) {
  int files = 0, failures = 0;
  for (int i = 1; i < argc; ++i) replay_path(argv[i], &files, &failures);
  printf("replayed %d inputs, %d unreadable\n", files, failures);
  return files == 0 || failures != 0;
}
