declare module 'systemd-notify' {
  interface NotifyOptions {
    ready?: boolean;
    status?: string;
    pid?: number;
    booted?: boolean;
  }
  function notify(options: NotifyOptions): Promise<unknown>;
  export default notify;
}
