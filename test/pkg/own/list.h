/* own/list.h - the application's own list.h (test/pkg/app.c), with a name
 * of its own: if the library's list.h stood in for it, app.c would call an
 * undeclared my_list_name() and fail to build (-Werror). */
#ifndef MY_APP_LIST_H
#define MY_APP_LIST_H
static inline const char *my_list_name(void)
{
    return "the application's list.h";
}
#endif
