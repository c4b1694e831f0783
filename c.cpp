#include <math.h>
int main(){}
