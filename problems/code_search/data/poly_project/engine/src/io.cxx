#include <cstdio>

#include "compat.hxx"

namespace engine {

void dump(const char* label, int value) {
    // FIXME: stdout is not thread-safe here
    printf("%s=%d\n", label, value);
    fprintf(stderr, "dumped %s\n", label);
}

}  // namespace engine
