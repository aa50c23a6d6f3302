/** Mail through the configured SMTP server with nodemailer (loaded on first use). */
import type { MailSender } from './service.js';

export function smtpMailer(url: string, from: string): MailSender {
  let transport: Promise<{ sendMail(message: Record<string, unknown>): Promise<unknown> }> | null = null;
  return {
    async send(to, subject, text) {
      transport ??= import('nodemailer').then((nodemailer) => nodemailer.default.createTransport(url));
      await (await transport).sendMail({ from, to, subject, text });
    },
  };
}
