// Placeholder: being written for issue 7.
int main() { return 1; }
