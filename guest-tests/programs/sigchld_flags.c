/* SIGCHLD flags: SA_NOCLDSTOP keeps the handler from running when a child stops or continues;
 * SA_NOCLDWAIT makes children vanish without zombies (wait fails with ECHILD). */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>
#include <sys/wait.h>
static volatile int n;
static void h(int s){ n++; }
int main(void){
  struct sigaction sa; memset(&sa,0,sizeof sa); sa.sa_handler=h; sa.sa_flags=SA_NOCLDSTOP|SA_RESTART; sigaction(SIGCHLD,&sa,0);
  pid_t c=fork(); if(!c){ pause(); _exit(0);} 
  usleep(50000); kill(c,SIGSTOP); usleep(50000); kill(c,SIGCONT); usleep(50000);
  printf("handler runs on stop/cont: %d\n", n); kill(c,SIGKILL); waitpid(c,0,0);
  sa.sa_handler=SIG_DFL; sa.sa_flags=SA_NOCLDWAIT; sigaction(SIGCHLD,&sa,0);
  c=fork(); if(!c) _exit(0); usleep(50000);
  errno=0; int r=wait(0); printf("wait with SA_NOCLDWAIT: %d %s\n", r, r<0? (errno==ECHILD?"ECHILD":"other"):"pid");
  return 0; }
