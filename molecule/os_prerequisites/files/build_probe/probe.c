#include <stdio.h>

int main(void) {
    puts("built on the node");
    return 0;
}
