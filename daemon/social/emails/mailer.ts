/** Mail through the configured SMTP server with nodemailer (loaded on first use). */
import { lazy } from '../../lib/on-first-use.js';
import type { MailSender } from './service.js';

export function smtpMailer(url: string, from: string): MailSender {
  const transport = lazy('mail (nodemailer)', async () => (await import('nodemailer')).default.createTransport(url));
  return {
    async send(to, subject, text) {
      await (await transport()).sendMail({ from, to, subject, text });
    },
  };
}
