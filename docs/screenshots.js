// The README's pictures (docs/*.png), taken in a real browser on a fresh Home Assistant.
// Needs Debian's chromium (apt-get install chromium) and playwright-core (npm). Two runs:
//
//   scripts/develop --demo-user                 (a real model file, e.g. Gemma 3 270M)
//   node docs/screenshots.js setup http://localhost:8123 /config/local_agent/models/gemma.gguf
//   scripts/develop --demo-user --demo-model    (the scripted demo model: a held question)
//   node docs/screenshots.js conversation http://localhost:8123 <the path scripts/develop printed>
//
// Each run adds the model file in the dialog, makes the new agent the assistant's conversation
// agent, and talks to it in the Assist dialog. Coordinates assume the 1000x760 window below.
const { chromium } = require('playwright-core');
const fs = require('fs');
const os = require('os');
const path = require('path');

const [MODE, BASE, MODEL] = process.argv.slice(2);
const OUT = path.join(__dirname);
const DIALOG = { x: 205, y: 90, width: 590, height: 580 };
const ASSIST = { x: 205, y: 95, width: 590, height: 570 };
const wait = (page, seconds) => page.waitForTimeout(seconds * 1000);

async function login(page) {
  await page.goto(BASE + '/');
  await wait(page, 4);
  await page.getByLabel(/username/i).first().fill('demo');
  await page.getByLabel(/password/i).first().fill('demo-demo');
  await page.keyboard.press('Enter');
  // A fresh profile's first visit installs the frontend's service worker and redirects to the
  // overview, which reloads the page a few seconds later (closing any dialog): let it happen.
  await wait(page, 20);
}

// Try again from a fresh page: on a busy machine the frontend sometimes reloads or drops a click.
async function retried(page, step, times = 3) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await step();
    } catch (error) {
      if (attempt === times) throw error;
      console.log(`retrying after: ${error.message.split('\n')[0]}`);
      await wait(page, 10);
    }
  }
}

async function addModel(page, shots) {
  await retried(page, async () => {
    await page.goto(BASE + '/config/integrations/dashboard');
    await wait(page, 5);
    await page.getByRole('button', { name: /Add integration/ }).first().click();
    // Typed keys reach the page's shortcuts (e: search, a: Assist) until the dialog has focus.
    await page.getByPlaceholder(/search/i).last().waitFor({ timeout: 30000 });
    await wait(page, 2);
    await page.getByPlaceholder(/search/i).last().fill('Local Agent');
    await wait(page, 3);
    await page.getByText('Local Agent', { exact: true }).last().click({ timeout: 30000 });
    await page.getByText('Use a model file on this machine').waitFor({ timeout: 30000 });
  });
  await wait(page, 2);
  if (shots) await page.screenshot({ path: `${OUT}/setup-1-choose.png`, clip: DIALOG });
  await page.getByText('Use a model file on this machine').click();
  await wait(page, 3);
  if (shots) {
    await page.locator('input:visible').last().fill('/config/models/model.gguf');
    await page.getByRole('button', { name: /submit/i }).click();
    await wait(page, 3);
    await page.screenshot({ path: `${OUT}/setup-2-model-file.png`, clip: DIALOG });
  }
  await page.locator('input:visible').last().fill(MODEL);
  await page.getByRole('button', { name: /submit/i }).click();
  await wait(page, 0.6);
  if (shots) await page.screenshot({ path: `${OUT}/setup-3-checking.png`, clip: DIALOG });
  await page.getByRole('button', { name: /Skip and finish/ }).waitFor({ timeout: 120000 });
  if (shots) await page.screenshot({ path: `${OUT}/setup-4-created.png`, clip: DIALOG });
  await page.getByRole('button', { name: /Skip and finish/ }).click();
  await wait(page, 2);
}

async function saveEngineOptions(page) {
  await page.goto(BASE + '/config/integrations/integration/local_agent');
  await wait(page, 6);
  await page.mouse.click(879, 395); // the model entry's cog: Configure
  await wait(page, 4);
  await page.getByRole('button', { name: /submit/i }).click();
  await wait(page, 0.7);
  await page.screenshot({ path: `${OUT}/setup-5-reloading.png`, clip: DIALOG });
  await page.getByRole('button', { name: /Finish/ }).waitFor({ timeout: 120000 });
}

async function useAgentInAssist(page) {
  await page.goto(BASE + '/config/voice-assistants/assistants');
  await wait(page, 6);
  await page.mouse.click(500, 168); // the "Home Assistant" assistant
  await wait(page, 4);
  await page.mouse.click(372, 431); // its conversation agent
  await wait(page, 3);
  await page.getByText(/Local Agent \(/).first().click();
  await wait(page, 2);
  await page.getByRole('button', { name: 'Update' }).click();
  await wait(page, 3);
}

async function exposeLock(page, name) {
  await page.goto(BASE + '/config/voice-assistants/expose');
  await wait(page, 6);
  await page.getByRole('button', { name: /Expose entities/i }).first().click();
  await wait(page, 3);
  await page.mouse.click(500, 205);
  await page.keyboard.type(name);
  await wait(page, 3);
  await page.getByText(name, { exact: true }).first().click();
  await wait(page, 1.5);
  await page.screenshot({ path: `${OUT}/expose-a-lock.png`, clip: { ...DIALOG, y: 110, height: 540 } });
  await page.getByRole('button', { name: /Expose 1 entit/ }).click();
  await wait(page, 3);
}

// Say each sentence in a new Assist dialog; shoot at the given seconds after the last one.
async function assist(page, sentences, shots) {
  await page.goto(BASE + '/lovelace/0');
  await wait(page, 6);
  await page.mouse.click(916, 28); // the Assist button
  await wait(page, 3);
  for (const sentence of sentences) {
    await page.mouse.click(470, 600);
    await wait(page, 0.5);
    await page.keyboard.type(sentence);
    await page.keyboard.press('Enter');
    await wait(page, 8);
  }
  const start = Date.now();
  for (const [seconds, file] of shots) {
    await page.waitForTimeout(Math.max(0, seconds * 1000 - (Date.now() - start)));
    await page.screenshot({ path: `${OUT}/${file}`, clip: ASSIST });
  }
}

(async () => {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'local-agent-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
           '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    viewport: { width: 1000, height: 760 },
    locale: 'en-US',
  });
  const page = context.pages()[0] || await context.newPage();
  page.setDefaultTimeout(90000); // a busy machine renders slowly
  try {
    await login(page);
    await addModel(page, MODE === 'setup');
    await useAgentInAssist(page);
    if (MODE === 'setup') {
      await saveEngineOptions(page);
      // The first sentence after start-up reads the whole home first: slow on a small machine.
      await assist(page, [], []);
      await page.mouse.click(470, 600);
      await page.keyboard.type('turn on the kitchen lights');
      await page.keyboard.press('Enter');
      await wait(page, 7);
      await page.screenshot({ path: `${OUT}/assist-1-slow.png`, clip: ASSIST });
      await wait(page, 240);
      await page.screenshot({ path: `${OUT}/assist-2-too-slow.png`, clip: ASSIST });
    } else {
      await assist(page, ['unlock the kitchen door'], [[0, 'assist-3-not-exposed.png']]);
      await exposeLock(page, 'Front Door');
      await assist(page, ['unlock the front door', 'yes'], [[0, 'assist-4-question-and-yes.png']]);
    }
  } catch (error) {
    await page.screenshot({ path: path.join(os.tmpdir(), 'local-agent-screenshots-failed.png') });
    throw error;
  } finally {
    await context.close();
  }
})().catch(e => { console.error(e); process.exit(1); });
