// Screenshots of the setup dialogs for the README (docs/setup-*.png), from a real browser.
// Needs Debian's chromium and playwright-core (npm), and a Home Assistant started with
// scripts/develop --demo-user (BASE below: adjust the port). Usage: node docs/screenshots.js docs MODEL.gguf
const { chromium } = require('playwright-core');
const BASE = 'http://localhost:8131';
const OUT = process.argv[2];
const MODEL = process.argv[3];
(async () => {
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking',
           '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  const context = await browser.newContext({ viewport: { width: 1000, height: 760 }, locale: 'en-US' });
  const page = await context.newPage();
  await page.goto(BASE + '/');
  await page.waitForTimeout(3000);
  await page.screenshot({ path: '/tmp/pw/0-login.png' });
  await page.getByLabel(/username/i).first().fill('demo');
  await page.getByLabel(/password/i).first().fill('demo-demo');
  await page.keyboard.press('Enter');
  await page.waitForTimeout(5000);
  await page.goto(BASE + '/config/integrations/dashboard');
  await page.waitForTimeout(4000);
  const confirm = page.getByRole('button', { name: 'Confirm' });
  if (await confirm.count()) { await confirm.first().click(); await page.waitForTimeout(1000); }
  await page.getByRole('button', { name: /Add integration/ }).first().click();
  await page.waitForTimeout(2500);
  await page.keyboard.type('Local Agent');
  await page.waitForTimeout(1500);
  await page.screenshot({ path: '/tmp/pw/1-search.png' });
  await page.getByText('Local Agent', { exact: true }).last().click();
  await page.waitForTimeout(4000);
  const dialog = page.locator('dialog-data-entry-flow ha-dialog, dialog-data-entry-flow').first();
  await page.screenshot({ path: OUT + '/setup-1-choose.png', clip: { x: 205, y: 90, width: 590, height: 580 } });
  await page.getByText('Use a model file on this machine').click();
  await page.waitForTimeout(2000);
  await page.locator('input:visible').last().fill('/nonexistent/model.gguf');
  await page.getByRole('button', { name: /submit|next/i }).click();
  await page.waitForTimeout(2000);
  await page.screenshot({ path: OUT + '/setup-2-model-file.png', clip: { x: 205, y: 90, width: 590, height: 580 } });
  await page.locator('input:visible').last().fill(MODEL);
  await page.getByRole('button', { name: /submit|next/i }).click();
  await page.waitForTimeout(400);
  await page.screenshot({ path: OUT + '/setup-3-checking.png', clip: { x: 205, y: 90, width: 590, height: 580 } });
  await page.waitForTimeout(15000);
  await page.screenshot({ path: OUT + '/setup-4-created.png', clip: { x: 205, y: 90, width: 590, height: 580 } }).catch(e => console.log('no final dialog', e.message));
  await page.screenshot({ path: '/tmp/pw/5-page.png' });
  await browser.close();
})().catch(e => { console.error(e); process.exit(1); });
