/* C, not C++: never scanned. TODO: delete */
#include <stdio.h>
int main(void) { printf("legacy\n"); return 0; }
