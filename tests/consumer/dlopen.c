/* Loads a plugin (consumer_plugin*.so) as an interpreter would and calls it:
 * the plugin and the library it links must load and answer right. */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv) {
    if (argc != 2) return 2;
    void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        printf("consumer_dlopen: %s\n", dlerror());
        return 3;
    }
    int (*sum)(const int *, int);
    *(void **)&sum = dlsym(h, "consumer_plugin_sum");
    const int v[] = {3, -1, 40, 1000};
    int got = sum ? sum(v, 4) : 0;
    printf("consumer_dlopen: %s: %d %s\n", argv[1], got, got == 1042 ? "PASSED" : "FAILED");
    dlclose(h);
    return got == 1042 ? 0 : 1;
}
