/* The floor every start-up is measured against: a process that does nothing. */
int main(void) { return 0; }
